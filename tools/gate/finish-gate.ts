import { GateStateSchema, type GateState } from "../../contract/gate.js";

/** Consecutive failed validations after which `finish` fails the task. */
export const MAX_FAILED_VALIDATIONS = 5;

/** A fresh gate: nothing validated, no failures, no outcome. */
export function initialGate(): GateState {
  return { validatedTree: null, failures: 0, task: null };
}

/** Parses the gate state handed over by the control plane; anything unreadable starts fresh. */
export function parseGate(raw: string | undefined): GateState {
  if (raw === undefined || raw === "") return initialGate();
  try {
    const parsed = GateStateSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : initialGate();
  } catch {
    return initialGate();
  }
}

/** The gate after a validation: success remembers the validated content, failure counts. Pure. */
export function recordValidation(state: GateState, success: boolean, tree: string): GateState {
  return success ? { ...state, validatedTree: tree, failures: 0 } : { ...state, failures: state.failures + 1 };
}

/** What `finish` does, decided from the gate and the workspace's current content. */
export type FinishDecision =
  | { kind: "finished"; state: GateState }
  | { kind: "refused"; reason: "never_validated" | "changed_since_validation" | "already_ended" }
  | { kind: "failed"; state: GateState; reason: string };

/** Decides a `finish` call. Pure. */
export function decideFinish(state: GateState, currentTree: string, summary: string, now: string): FinishDecision {
  if (state.task !== null) return { kind: "refused", reason: "already_ended" };
  if (state.failures >= MAX_FAILED_VALIDATIONS) {
    const reason = `${state.failures} consecutive validations failed; the task ends as failed.`;
    return { kind: "failed", reason, state: { ...state, task: { status: "failed", reason, summary, at: now } } };
  }
  if (state.validatedTree === null) return { kind: "refused", reason: "never_validated" };
  if (state.validatedTree !== currentTree) return { kind: "refused", reason: "changed_since_validation" };
  return { kind: "finished", state: { ...state, task: { status: "finished", summary, at: now } } };
}
