import { describe, expect, it } from "vitest";
import { isoNow } from "../../../../runtime/clock/clock.js";
import { MANUAL_CLOCK_START_MS, ManualClock } from "../../../../runtime/testing/manual-clock.js";

describe("ManualClock", () => {
  it("stands still at 2026-01-01 until it is moved", () => {
    const clock = new ManualClock();
    expect(clock.now()).toBe(MANUAL_CLOCK_START_MS);
    expect(isoNow(clock)).toBe("2026-01-01T00:00:00.000Z");
    expect(clock.now()).toBe(MANUAL_CLOCK_START_MS);
  });

  it("moves forward by what advance is given and answers the new time", () => {
    const clock = new ManualClock(1_000);
    expect(clock.advance(250)).toBe(1_250);
    clock.advance(0);
    expect(clock.now()).toBe(1_250);
  });

  it("goes to any moment with set, earlier ones included", () => {
    const clock = new ManualClock();
    clock.set(Date.UTC(2025, 5, 1));
    expect(isoNow(clock)).toBe("2025-06-01T00:00:00.000Z");
  });

  it("refuses to go back with advance, or to a time that is not a finite number", () => {
    const clock = new ManualClock(5_000);
    expect(() => clock.advance(-1)).toThrow(/forward only/);
    expect(() => clock.set(Number.NaN)).toThrow(/finite number/);
    expect(() => new ManualClock(Number.POSITIVE_INFINITY)).toThrow(/finite number/);
    expect(clock.now()).toBe(5_000);
  });
});
