import { describe, expect, it } from "vitest";
import { AdmissionQueue, type Release } from "../../../../runtime/admission/admission-queue.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("AdmissionQueue", () => {
  it("never runs more than the limit at once", async () => {
    const queue = new AdmissionQueue(2);
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
    for (let i = 0; i < 4; i += 1) void queue.acquire("busy").then((release) => (order.push("busy"), releases.push(release)));
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
    for (let i = 0; i < 2; i += 1) void queue.acquire("old").then((release) => (order.push("old"), releases.push(release)));
    for (let i = 0; i < 2; i += 1) void queue.acquire("new").then((release) => (order.push("new"), releases.push(release)));
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
    const withdrawn = queue.acquire("b", { signal: controller.signal }).then(() => "granted", () => "withdrawn");
    void queue.acquire("c", { onPosition: (p) => positions.push(p) });
    expect(positions.at(-1)).toBe(2);
    controller.abort();
    expect(await withdrawn).toBe("withdrawn");
    expect(positions.at(-1)).toBe(1);
    hold();
    await tick();
    expect(queue.status()).toEqual({ running: 1, queued: 0, limit: 1 });
  });
});
