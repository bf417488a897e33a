import { describe, expect, it, vi } from "vitest";
import { AdmissionQueue, MAX_WAITING_PER_WORKER, type Release } from "../../../../runtime/admission/admission-queue.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("AdmissionQueue", () => {
  it("never runs more than the limit at once", async () => {
    // A per-worker cap above the limit, so only the host-wide limit is in play here.
    const queue = new AdmissionQueue(2, { perWorker: 5 });
    const granted: Release[] = [];
    for (let i = 0; i < 5; i += 1) void queue.acquire("w1").then((release) => granted.push(release));
    await tick();
    expect(granted).toHaveLength(2);
    expect(queue.status()).toEqual({ running: 2, queued: 3, limit: 2 });
    granted[0]?.();
    granted[0]?.();
    await tick();
    expect(granted).toHaveLength(3);
    expect(queue.status().running).toBe(2);
  });

  it("shares slots fairly: a worker with many queued commands does not starve another", async () => {
    const queue = new AdmissionQueue(1);
    const order: string[] = [];
    const releases: Release[] = [];
    const first = await queue.acquire("busy");
    for (let i = 0; i < 4; i += 1)
      void queue.acquire("busy").then((release) => (order.push("busy"), releases.push(release)));
    void queue.acquire("quiet").then((release) => (order.push("quiet"), releases.push(release)));
    void queue.acquire("quiet").then((release) => (order.push("quiet"), releases.push(release)));
    first();
    for (let i = 0; i < 6; i += 1) {
      await tick();
      releases.shift()?.();
    }
    await tick();
    expect(order).toEqual(["quiet", "busy", "quiet", "busy", "busy", "busy"]);
  });

  it("gives a newcomer no credit for the time it was not waiting", async () => {
    const queue = new AdmissionQueue(1);
    for (let i = 0; i < 3; i += 1) (await queue.acquire("old"))();
    const hold = await queue.acquire("old");
    const order: string[] = [];
    const releases: Release[] = [];
    for (let i = 0; i < 2; i += 1)
      void queue.acquire("old").then((release) => (order.push("old"), releases.push(release)));
    for (let i = 0; i < 2; i += 1)
      void queue.acquire("new").then((release) => (order.push("new"), releases.push(release)));
    hold();
    for (let i = 0; i < 4; i += 1) {
      await tick();
      releases.shift()?.();
    }
    await tick();
    expect(order).toEqual(["new", "old", "new", "old"]);
  });

  it("tells waiters their position and lets them withdraw", async () => {
    const queue = new AdmissionQueue(1);
    const hold = await queue.acquire("a");
    const positions: number[] = [];
    const controller = new AbortController();
    const withdrawn = queue.acquire("b", { signal: controller.signal }).then(
      () => "granted",
      () => "withdrawn",
    );
    void queue.acquire("c", { onPosition: (p) => positions.push(p) });
    expect(positions.at(-1)).toBe(2);
    controller.abort();
    expect(await withdrawn).toBe("withdrawn");
    expect(positions.at(-1)).toBe(1);
    hold();
    await tick();
    expect(queue.status()).toEqual({ running: 1, queued: 0, limit: 1 });
  });

  it("lets a worker hold at most perWorker slots; the free ones go to other workers", async () => {
    const queue = new AdmissionQueue(3, { perWorker: 1 });
    const greedy: Release[] = [];
    for (let i = 0; i < 3; i += 1) void queue.acquire("greedy").then((release) => greedy.push(release));
    await tick();
    expect(greedy).toHaveLength(1);
    expect(queue.heldBy("greedy")).toBe(1);
    expect(queue.status()).toEqual({ running: 1, queued: 2, limit: 3 });
    const other = await queue.acquire("other");
    expect(queue.status().running).toBe(2);
    greedy[0]?.();
    await tick();
    expect(greedy).toHaveLength(2);
    expect(queue.heldBy("greedy")).toBe(1);
    other();
  });

  it("does not hold the operator's own commands to the per-worker cap, only to the limit", async () => {
    const queue = new AdmissionQueue(2, { perWorker: 1 });
    const holder = await queue.acquire("w1", { uncapped: true });
    // A second operator exec on the same worker (it may be what ends the first) gets the free slot.
    const second = await queue.acquire("w1", { uncapped: true });
    expect(queue.heldBy("w1")).toBe(2);
    // The sandbox's own request is still capped, and nothing runs past the limit.
    let sandbox: Release | undefined;
    void queue.acquire("w1").then((release) => (sandbox = release));
    let third: Release | undefined;
    void queue.acquire("w2", { uncapped: true }).then((release) => (third = release));
    await tick();
    expect(sandbox).toBeUndefined();
    expect(third).toBeUndefined();
    expect(queue.status()).toEqual({ running: 2, queued: 2, limit: 2 });
    holder();
    second();
    await tick();
    expect(third).toBeDefined();
    third?.();
    sandbox?.();
  });

  it("takes a slot back when its lease runs out, and a late release does not free a second slot", async () => {
    vi.useFakeTimers();
    try {
      const expired: string[] = [];
      const queue = new AdmissionQueue(1, { leaseMs: 1_000, onLeaseExpired: (workerId) => expired.push(workerId) });
      const leaked = await queue.acquire("a");
      const granted: string[] = [];
      let next: Release | undefined;
      void queue.acquire("b").then((release) => (granted.push("b"), (next = release)));
      void queue.acquire("c").then(() => granted.push("c"));
      await vi.advanceTimersByTimeAsync(999);
      expect(granted).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(expired).toEqual(["a"]);
      expect(granted).toEqual(["b"]);
      leaked();
      await vi.advanceTimersByTimeAsync(0);
      expect(granted).toEqual(["b"]);
      expect(queue.status()).toEqual({ running: 1, queued: 1, limit: 1 });
      next?.();
      await vi.advanceTimersByTimeAsync(0);
      expect(granted).toEqual(["b", "c"]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("uses the lease a request asks for instead of the default", async () => {
    vi.useFakeTimers();
    try {
      const queue = new AdmissionQueue(1, { leaseMs: 60_000 });
      await queue.acquire("a", { leaseMs: 10 });
      await vi.advanceTimersByTimeAsync(10);
      expect(queue.status().running).toBe(0);
      expect(queue.heldBy("a")).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses a worker that already has the most requests waiting", async () => {
    const queue = new AdmissionQueue(1);
    const hold = await queue.acquire("a");
    const waiting = Array.from({ length: MAX_WAITING_PER_WORKER }, () => queue.acquire("a").catch(() => undefined));
    await expect(queue.acquire("a")).rejects.toThrow(/already has 64 heavy commands waiting/);
    expect(queue.status().queued).toBe(MAX_WAITING_PER_WORKER);
    hold();
    void waiting;
  });
});
