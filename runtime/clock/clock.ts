/** Where the runtime reads the time: the system clock in production, a manual one in tests. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** The clock's time as an ISO 8601 string, the form stored on workers and records. */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
