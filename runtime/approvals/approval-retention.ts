import type { Approval } from "./approval.js";

/** How many decided approvals are kept, and for how long. */
export interface RetentionLimits {
  readonly maxDecided: number;
  readonly maxAgeMs: number;
}

/** Decided approvals kept by default: the newest 500, none older than 7 days. */
export const DEFAULT_RETENTION: RetentionLimits = Object.freeze({ maxDecided: 500, maxAgeMs: 7 * 24 * 60 * 60_000 });

/**
 * The ids of decided approvals to delete so the store stays bounded: those decided more
 * than `maxAgeMs` before `nowMs`, and the oldest beyond the newest `maxDecided`. Pending
 * approvals are never chosen (their calls are still waiting). Pure.
 */
export function selectPrunable(
  approvals: readonly Approval[],
  nowMs: number,
  limits: RetentionLimits = DEFAULT_RETENTION,
): string[] {
  const decidedAt = (approval: Approval) => Date.parse(approval.decidedAt ?? approval.createdAt) || 0;
  const decided = approvals
    .filter((approval) => approval.status !== "pending")
    .sort((a, b) => decidedAt(b) - decidedAt(a));
  return decided
    .filter((approval, index) => index >= limits.maxDecided || nowMs - decidedAt(approval) > limits.maxAgeMs)
    .map((approval) => approval.id);
}
