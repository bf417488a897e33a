import { describe, expect, it } from "vitest";
import { approvalDefaults } from "../../../../runtime/approvals/approval.js";
import { at, request, setUpQueue, waitFor } from "./approval-queue-harness.js";

describe("ApprovalQueue on the in-memory store with a manual clock", () => {
  it("marks an approval whose call no longer waits as abandoned when a reviewer tries to decide it", async () => {
    const { clock, queue, memory } = setUpQueue();
    await memory.putApproval({
      id: "ap_orphan",
      workerId: "w1",
      kind: "tool",
      tool: "shell",
      input: {},
      description: "",
      status: "pending",
      createdAt: at(clock.now()),
      expiresAt: at(clock.now() + 60_000),
    });
    clock.advance(1_000);
    await expect(queue.decide("ap_orphan", { decision: "approve" })).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/no longer exists/),
    });
    expect(await memory.getApproval("ap_orphan")).toMatchObject({ status: "abandoned", decidedAt: at(clock.now()) });
  });

  it("marks approvals a previous run left pending as abandoned at start, stamped by the clock, and keeps decided ones", async () => {
    const { clock, queue, memory } = setUpQueue();
    const base = {
      workerId: "w1",
      kind: "tool" as const,
      tool: "shell",
      input: {},
      description: "",
      createdAt: at(clock.now()),
      expiresAt: at(clock.now() + 60_000),
    };
    await memory.putApproval({ ...base, id: "ap_left", status: "pending" });
    await memory.putApproval({
      ...base,
      id: "ap_done",
      status: "approved",
      decision: "approve",
      decidedAt: at(clock.now()),
    });
    clock.advance(2_000);
    await queue.abandonLeftovers();
    expect(await memory.getApproval("ap_left")).toMatchObject({ status: "abandoned", decidedAt: at(clock.now()) });
    expect(await memory.getApproval("ap_done")).toMatchObject({
      status: "approved",
      decidedAt: at(clock.now() - 2_000),
    });
  });

  it("prunes a decided approval once it is older than the age limit on the queue's clock, and never a pending one", async () => {
    const { clock, queue, pending, memory } = setUpQueue({ retention: { maxDecided: 100, maxAgeMs: 60_000 } });
    const decidedCall = queue.request(request("w1"), approvalDefaults(), new AbortController().signal);
    await queue.decide((await pending()).id, { decision: "approve" });
    await decidedCall;
    void queue.request(request("w2"), approvalDefaults(), new AbortController().signal);
    const waiting = await pending("w2");
    clock.advance(60_000);
    expect(await queue.prune()).toBe(0);
    clock.advance(1);
    expect(await queue.prune()).toBe(1);
    expect((await memory.listApprovals()).map((approval) => approval.id)).toEqual([waiting.id]);
  });

  it("lists approvals oldest first, filtered by status and by worker", async () => {
    const { clock, queue, pending } = setUpQueue();
    clock.set(Date.UTC(2026, 5, 3));
    void queue.request(request("w2"), approvalDefaults(), new AbortController().signal);
    const newest = await pending("w2");
    clock.set(Date.UTC(2026, 5, 1));
    void queue.request(request("w1"), approvalDefaults(), new AbortController().signal);
    const oldest = await pending("w1");
    clock.set(Date.UTC(2026, 5, 2));
    void queue.request(request("w1"), approvalDefaults(), new AbortController().signal);
    await waitFor(async () => (await queue.list({ workerId: "w1" })).length === 2);
    const middle = (await queue.list({ workerId: "w1" }))[1];
    await queue.decide(oldest.id, { decision: "reject" });
    expect((await queue.list({})).map((approval) => approval.id)).toEqual([oldest.id, middle?.id, newest.id]);
    expect((await queue.list({ status: "pending" })).map((approval) => approval.id)).toEqual([middle?.id, newest.id]);
    expect((await queue.list({ status: "rejected", workerId: "w1" })).map((approval) => approval.id)).toEqual([
      oldest.id,
    ]);
    expect(await queue.list({ workerId: "w3" })).toEqual([]);
  });
});
