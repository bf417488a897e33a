import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { approvalDefaults } from "../../../../runtime/approvals/approval.js";
import { ApprovalQueue } from "../../../../runtime/approvals/approval-queue.js";
import { LowdbStateStore } from "../../../../runtime/store/lowdb-store.js";
import { request, waitFor } from "./approval-queue-harness.js";

let dir: string;
let store: LowdbStateStore;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "workcell-approvals-"));
  store = await LowdbStateStore.open(dir);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const hooks = { event: async () => undefined, grantForLife: async () => undefined };

describe("ApprovalQueue", () => {
  it("lets a reviewer decide an approval the moment it is listed, while its event is still being written", async () => {
    let releaseEvent: () => void = () => undefined;
    const requested = new Promise<undefined>((resolve) => (releaseEvent = () => resolve(undefined)));
    const slowHooks = {
      event: async (_workerId: string, type: string) => (type === "approval_requested" ? requested : undefined),
      grantForLife: async () => undefined,
    };
    const queue = new ApprovalQueue(store, slowHooks);
    const call = queue.request(request("w1", { path: "a.txt" }), approvalDefaults(), new AbortController().signal);
    await waitFor(async () => (await queue.list({ status: "pending" })).length === 1);
    const [listed] = await queue.list({ status: "pending" });
    await expect(queue.decide(listed?.id ?? "", { decision: "approve" })).resolves.toMatchObject({
      status: "approved",
    });
    releaseEvent();
    await expect(call).resolves.toMatchObject({ decision: "approve" });
  });

  it("refuses more pending approvals per worker than the cap, stores none of the refused, and frees a place once one is decided", async () => {
    const queue = new ApprovalQueue(store, hooks, { maxPendingPerWorker: 2 });
    const controller = new AbortController();
    const first = queue.request(request("w1"), approvalDefaults(), controller.signal);
    void queue.request(request("w1"), approvalDefaults(), controller.signal);
    await expect(queue.request(request("w1"), approvalDefaults(), controller.signal)).rejects.toThrow(
      /already has 2 approvals waiting/,
    );
    void queue.request(request("w2"), approvalDefaults(), controller.signal);
    await waitFor(async () => (await queue.list({ status: "pending" })).length === 3);
    expect((await queue.list({ workerId: "w1" })).length).toBe(2);
    const [oldest] = await queue.list({ workerId: "w1" });
    await queue.decide(oldest?.id ?? "", { decision: "approve" });
    await first;
    void queue.request(request("w1"), approvalDefaults(), controller.signal);
    await waitFor(async () => (await queue.list({ workerId: "w1", status: "pending" })).length === 2);
    expect((await queue.list({ workerId: "w1", status: "pending" })).length).toBe(2);
    controller.abort();
    await waitFor(async () => (await queue.list({ status: "pending" })).length === 0);
    expect((await queue.list({ status: "cancelled" })).length).toBe(3);
  });

  it("refuses an input too large to review and stores nothing", async () => {
    const queue = new ApprovalQueue(store, hooks);
    await expect(
      queue.request(
        request("w1", { content: "x".repeat(8 * 1024 * 1024) }),
        approvalDefaults(),
        new AbortController().signal,
      ),
    ).rejects.toThrow(/at most 65536 bytes/);
    expect(await store.listApprovals()).toEqual([]);
    expect((await stat(path.join(dir, "state.json")).catch(() => ({ size: 0 }))).size).toBeLessThan(10_000);
  });

  it("prunes decided approvals beyond the retention count as new ones are decided", async () => {
    const queue = new ApprovalQueue(store, hooks, { retention: { maxDecided: 2, maxAgeMs: 60_000 } });
    for (let i = 0; i < 5; i += 1) {
      const controller = new AbortController();
      const answer = queue.request(request("w1"), approvalDefaults(), controller.signal);
      await waitFor(async () => (await queue.list({ status: "pending" })).length === 1);
      const [pending] = await queue.list({ status: "pending" });
      await queue.decide(pending?.id ?? "", { decision: "reject" });
      await answer;
    }
    expect((await store.listApprovals()).length).toBe(2);
  });

  it("prunes decided approvals older than the age limit when it starts", async () => {
    const old = new Date(Date.now() - 10 * 24 * 60 * 60_000).toISOString();
    await store.putApproval({
      id: "ap_old",
      workerId: "w1",
      kind: "tool",
      tool: "shell",
      input: {},
      description: "",
      status: "approved",
      createdAt: old,
      expiresAt: old,
      decidedAt: old,
    });
    await new ApprovalQueue(store, hooks).abandonLeftovers();
    expect(await store.listApprovals()).toEqual([]);
  });
});
