import { describe, expect, it } from "vitest";
import { KeyedLock } from "../../../../runtime/workers/keyed-lock.js";

/** An operation that only ends when its signal aborts. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

describe("KeyedLock", () => {
  it("runs operations on one key in arrival order, one at a time", async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    let releaseFirst = () => undefined as void;
    const first = lock.run(
      "a",
      () =>
        new Promise<void>(
          (resolve) =>
            (releaseFirst = () => {
              order.push("first");
              resolve();
            }),
        ),
    );
    const second = lock.run("a", async () => void order.push("second"));
    await Promise.resolve();
    expect(order).toEqual([]);
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(["first", "second"]);
    expect(lock.isBusy("a")).toBe(false);
  });

  it("runIfIdle answers undefined instead of waiting behind a holder, and runs when the key is free", async () => {
    const lock = new KeyedLock();
    const held = lock.run("a", untilAborted);
    expect(lock.runIfIdle("a", async () => "ran")).toBeUndefined();
    expect(await lock.runIfIdle("b", async () => "ran")).toBe("ran");
    lock.preempt("a", "test over");
    await expect(held).rejects.toThrow("test over");
  });

  it("preempt aborts the holder and the waiters with the reason, so the next operation runs", async () => {
    const lock = new KeyedLock();
    const holder = lock.run("a", untilAborted);
    const waiter = lock.run("a", async (signal) => (signal.aborted ? "saw abort" : "not aborted"));
    expect(lock.preempt("a", "the worker is being stopped")).toBe(true);
    await expect(holder).rejects.toThrow("the worker is being stopped");
    expect(await waiter).toBe("saw abort");
    expect(await lock.run("a", async (signal) => signal.aborted)).toBe(false);
    expect(lock.preempt("a", "nothing there")).toBe(false);
  });

  it("preempting one key leaves other keys alone", async () => {
    const lock = new KeyedLock();
    const other = lock.run("b", async (signal) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return signal.aborted;
    });
    lock.preempt("a", "only a");
    expect(await other).toBe(false);
  });

  it("whenIdle settles at once for a free key and after the holder for a held one", async () => {
    const lock = new KeyedLock();
    await lock.whenIdle("free");
    let release = () => undefined as void;
    const held = lock.run("a", () => new Promise<void>((resolve) => (release = resolve)));
    let idle = false;
    const waiting = lock.whenIdle("a").then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    release();
    await Promise.all([held, waiting]);
    expect(idle).toBe(true);
    expect(lock.isBusy("a")).toBe(false);
  });
});
