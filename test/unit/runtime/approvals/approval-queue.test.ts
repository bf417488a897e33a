import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { approvalDefaults } from "../../../../runtime/approvals/approval.js";
import { ApprovalQueue } from "../../../../runtime/approvals/approval-queue.js";
import { LowdbStateStore } from "../../../../runtime/store/lowdb-store.js";
import { InMemoryStateStore } from "../../../../runtime/testing/in-memory-store.js";
import { ManualClock } from "../../../../runtime/testing/manual-clock.js";

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
const request = (workerId: string, input: unknown = {}) => ({
  workerId,
  kind: "tool" as const,
  tool: "shell",
  input,
  description: "d",
});
const waitFor = async (condition: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await condition()); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
};

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

describe("ApprovalQueue on the in-memory store with a manual clock", () => {
  const at = (ms: number) => new Date(ms).toISOString();
  const setUp = (limits: { retention?: { maxDecided: number; maxAgeMs: number } } = {}) => {
    const clock = new ManualClock();
    const memory = new InMemoryStateStore();
    const events: { type: string; data: Record<string, unknown> }[] = [];
    const grants: { workerId: string; permission: { kind: string; target: string } }[] = [];
    const queue = new ApprovalQueue(
      memory,
      {
        event: async (_workerId, type, data) => void events.push({ type, data }),
        grantForLife: async (workerId, permission) => void grants.push({ workerId, permission }),
      },
      { ...limits, clock },
    );
    /** The oldest pending approval once the queue has recorded it. */
    const pending = async (workerId?: string) => {
      const filter = { status: "pending", ...(workerId === undefined ? {} : { workerId }) };
      await waitFor(async () => (await queue.list(filter)).length > 0);
      const [oldest] = await queue.list(filter);
      if (oldest === undefined) throw new Error("no approval was recorded as pending");
      return oldest;
    };
    return { clock, memory, events, grants, queue, pending };
  };
  const permissionRequest = {
    workerId: "w1",
    kind: "permission" as const,
    tool: "net",
    input: { kind: "net", target: "pypi.org" },
    description: "d",
    permission: { kind: "net", target: "pypi.org" },
  };

  it("records a request as pending with the clock's time and expiry, and answers the reviewer's approval to the waiting call", async () => {
    const { clock, queue, events, pending, memory } = setUp();
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
    const { queue, pending } = setUp();
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
    const { queue, pending } = setUp();
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
    const { queue, memory } = setUp();
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
    const { queue, pending, memory } = setUp();
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

  it("marks an approval whose call no longer waits as abandoned when a reviewer tries to decide it", async () => {
    const { clock, queue, memory } = setUp();
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
    const { clock, queue, memory } = setUp();
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

  it("grants a permission for the worker's life only when a reviewer approves it with scope worker", async () => {
    const { queue, pending, grants } = setUp();
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

  it("prunes a decided approval once it is older than the age limit on the queue's clock, and never a pending one", async () => {
    const { clock, queue, pending, memory } = setUp({ retention: { maxDecided: 100, maxAgeMs: 60_000 } });
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
    const { clock, queue, pending } = setUp();
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
