import { describe, expect, it } from "vitest";
import { approvalDefaults } from "../../../../runtime/approvals/approval.js";
import { at, request, setUpQueue } from "./approval-queue-harness.js";

describe("ApprovalQueue on the in-memory store with a manual clock", () => {
  const permissionRequest = {
    workerId: "w1",
    kind: "permission" as const,
    tool: "net",
    input: { kind: "net", target: "pypi.org" },
    description: "d",
    permission: { kind: "net", target: "pypi.org" },
  };

  it("records a request as pending with the clock's time and expiry, and answers the reviewer's approval to the waiting call", async () => {
    const { clock, queue, events, pending, memory } = setUpQueue();
    const startMs = clock.now();
    const call = queue.request(
      request("w1", { command: "make" }),
      { ...approvalDefaults(), timeoutMs: 600_000 },
      new AbortController().signal,
    );
    const recorded = await pending();
    expect(recorded).toMatchObject({
      status: "pending",
      createdAt: at(startMs),
      expiresAt: at(startMs + 600_000),
      input: { command: "make" },
    });
    clock.advance(5_000);
    await queue.decide(recorded.id, { decision: "approve" });
    expect(await call).toEqual({ decision: "approve", approvalId: recorded.id });
    expect(await memory.getApproval(recorded.id)).toMatchObject({
      status: "approved",
      decision: "approve",
      decidedAt: at(startMs + 5_000),
    });
    expect(events.map((event) => event.type)).toEqual(["approval_requested", "approval_decided"]);
    expect(events[1]?.data).toMatchObject({ approvalId: recorded.id, status: "approved", durationMs: 5_000 });
  });

  it("hands an edited input back to the waiting call and keeps it on the record", async () => {
    const { queue, pending } = setUpQueue();
    const call = queue.request(
      request("w1", { command: "rm -rf /" }),
      approvalDefaults(),
      new AbortController().signal,
    );
    const recorded = await pending();
    const decided = await queue.decide(recorded.id, {
      decision: "edit",
      input: { command: "rm -rf build" },
      reason: "narrower",
    });
    expect(await call).toEqual({
      decision: "edit",
      approvalId: recorded.id,
      input: { command: "rm -rf build" },
      reason: "narrower",
    });
    expect(decided).toMatchObject({ status: "edited", editedInput: { command: "rm -rf build" }, reason: "narrower" });
  });

  it("refuses to decide an approval twice, or one that does not exist", async () => {
    const { queue, pending } = setUpQueue();
    const call = queue.request(request("w1"), approvalDefaults(), new AbortController().signal);
    const recorded = await pending();
    await queue.decide(recorded.id, { decision: "reject" });
    await call;
    await expect(queue.decide(recorded.id, { decision: "approve" })).rejects.toMatchObject({
      code: "conflict",
      details: { status: "rejected" },
    });
    await expect(queue.decide("ap_missing", { decision: "approve" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("decides on its own when nobody answers in time: a rejection by default, an approval when the settings say so", async () => {
    const { queue, memory } = setUpQueue();
    const rejected = await queue.request(
      request("w1"),
      { ...approvalDefaults(), timeoutMs: 20 },
      new AbortController().signal,
    );
    expect(rejected).toMatchObject({ decision: "reject", reason: "no decision within 20 ms" });
    const approved = await queue.request(
      request("w1"),
      { ...approvalDefaults(), timeoutMs: 20, onTimeout: "approve" },
      new AbortController().signal,
    );
    expect(approved).toMatchObject({ decision: "approve", reason: "approved on timeout" });
    expect((await memory.listApprovals()).map((approval) => approval.status)).toEqual(["timed_out", "timed_out"]);
  });

  it("withdraws a request the agent cancels, and marks one whose MCP session closed as abandoned", async () => {
    const { queue, pending, memory } = setUpQueue();
    const cancelled = new AbortController();
    const first = queue.request(request("w1"), approvalDefaults(), cancelled.signal);
    const firstRecord = await pending("w1");
    cancelled.abort();
    expect(await first).toMatchObject({ decision: "reject", reason: "the agent cancelled the call" });
    const closed = new AbortController();
    const second = queue.request(request("w2"), approvalDefaults(), closed.signal);
    const secondRecord = await pending("w2");
    closed.abort("session_closed");
    expect(await second).toMatchObject({ decision: "reject", reason: "the MCP session ended while waiting" });
    expect((await memory.getApproval(firstRecord.id))?.status).toBe("cancelled");
    expect((await memory.getApproval(secondRecord.id))?.status).toBe("abandoned");
  });

  it("grants a permission for the worker's life only when a reviewer approves it with scope worker", async () => {
    const { queue, pending, grants } = setUpQueue();
    for (const decision of [
      { decision: "approve", scope: "once" },
      { decision: "reject", scope: "worker" },
      { decision: "approve", scope: "worker" },
    ] as const) {
      const call = queue.request(permissionRequest, approvalDefaults(), new AbortController().signal);
      await queue.decide((await pending()).id, decision);
      expect(await call).toMatchObject(decision);
    }
    expect(grants).toEqual([{ workerId: "w1", permission: { kind: "net", target: "pypi.org" } }]);
  });
});
