import { describe, expect, it } from "vitest";
import {
  decideFinish,
  initialGate,
  MAX_FAILED_VALIDATIONS,
  parseGate,
  recordValidation,
} from "../../../../tools/gate/finish-gate.js";

const A = "a".repeat(40);
const B = "b".repeat(40);
const NOW = "2026-01-01T00:00:00.000Z";

describe("the finish gate", () => {
  it("refuses to finish before any validation", () => {
    expect(decideFinish(initialGate(), A, "done", NOW)).toEqual({ kind: "refused", reason: "never_validated" });
  });

  it("finishes on exactly the validated content", () => {
    const validated = recordValidation(initialGate(), true, A);
    const decision = decideFinish(validated, A, "done", NOW);
    expect(decision.kind).toBe("finished");
    if (decision.kind === "finished")
      expect(decision.state.task).toEqual({ status: "finished", summary: "done", at: NOW });
  });

  it("refuses when the content changed after validation", () => {
    expect(decideFinish(recordValidation(initialGate(), true, A), B, "done", NOW)).toEqual({
      kind: "refused",
      reason: "changed_since_validation",
    });
  });

  it("fails the task after five consecutive failed validations, and a success resets the count", () => {
    let state = initialGate();
    for (let i = 0; i < MAX_FAILED_VALIDATIONS - 1; i += 1) state = recordValidation(state, false, A);
    expect(decideFinish(state, A, "done", NOW).kind).toBe("refused");
    expect(recordValidation(state, true, A).failures).toBe(0);
    state = recordValidation(state, false, A);
    const decision = decideFinish(state, A, "done", NOW);
    expect(decision.kind).toBe("failed");
    if (decision.kind === "failed") expect(decision.state.task?.status).toBe("failed");
  });

  it("keeps an ended task ended", () => {
    const finished = { ...recordValidation(initialGate(), true, A), task: { status: "finished" as const, at: NOW } };
    expect(decideFinish(finished, A, "again", NOW)).toEqual({ kind: "refused", reason: "already_ended" });
  });

  it("starts fresh from a missing or unreadable hand-over", () => {
    expect(parseGate(undefined)).toEqual(initialGate());
    expect(parseGate("{not json")).toEqual(initialGate());
    expect(parseGate(JSON.stringify({ validatedTree: "zz", failures: -1, task: null }))).toEqual(initialGate());
    expect(parseGate(JSON.stringify({ validatedTree: A, failures: 2, task: null }))).toEqual({
      validatedTree: A,
      failures: 2,
      task: null,
    });
  });
});
