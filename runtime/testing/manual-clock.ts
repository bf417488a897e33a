import type { Clock } from "../clock/clock.js";

/** The moment a ManualClock shows unless told otherwise: 2026-01-01T00:00:00.000Z. */
export const MANUAL_CLOCK_START_MS = Date.UTC(2026, 0, 1);

/** A clock that stands still until the test moves it: `advance` forward, `set` to any moment. */
export class ManualClock implements Clock {
  private nowMs: number;

  constructor(startMs: number = MANUAL_CLOCK_START_MS) {
    this.nowMs = checkedMs(startMs, "startMs");
  }

  now(): number {
    return this.nowMs;
  }

  /** Moves the clock forward by `ms` (never back: use `set` for that) and answers the new time. */
  advance(ms: number): number {
    if (checkedMs(ms, "ms") < 0)
      throw new RangeError(`advance moves the clock forward only; got ${ms} ms. Use set(ms) to move it back.`);
    this.nowMs += ms;
    return this.nowMs;
  }

  /** Puts the clock at `ms` since the epoch, earlier or later. */
  set(ms: number): void {
    this.nowMs = checkedMs(ms, "ms");
  }
}

function checkedMs(ms: number, name: string): number {
  if (!Number.isFinite(ms)) throw new RangeError(`${name} must be a finite number of milliseconds; got ${ms}.`);
  return ms;
}
