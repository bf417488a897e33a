import { describe, expect, it } from "vitest";
import {
  allowedPositions,
  BLOCKING_CHECKS,
  decideTransition,
  describeStep,
  SEQUENCE,
  type StepTool,
} from "../../../../runtime/pipeline/transitions.js";

const TOOLS: StepTool[] = [
  "accept_goal",
  "instruct_feature_file",
  "instruct_step_defs",
  "instruct_unit_tests",
  "instruct_implementation",
  "instruct_refactor",
  "run_validation",
  "commit",
  "run_quality_checks",
  "mark_complete",
];
const position = (description: string) => SEQUENCE.findIndex((_, index) => describeStep(index) === description);

describe("the pipeline sequence", () => {
  it("has the 19 steps in the documented order", () => {
    expect(SEQUENCE.map((_, index) => describeStep(index))).toEqual([
      "accept_goal",
      "instruct_feature_file",
      "commit (post_feature_file)",
      "run_quality_checks (post_feature_file)",
      "instruct_step_defs",
      "commit (post_step_defs)",
      "run_quality_checks (post_step_defs)",
      "instruct_unit_tests",
      "commit (post_unit_tests)",
      "run_quality_checks (post_unit_tests)",
      "instruct_implementation",
      "commit (post_implementation)",
      "run_quality_checks (post_implementation)",
      "instruct_refactor",
      "commit (post_refactor)",
      "run_quality_checks (post_refactor)",
      "run_validation",
      "commit (post_validation)",
      "mark_complete",
    ]);
  });

  it("walks forward one step at a time through the whole sequence", () => {
    let at = 0;
    for (let next = 1; next < SEQUENCE.length; next += 1) {
      const decision = decideTransition(at, false, (SEQUENCE[next] as { tool: StepTool }).tool);
      expect(decision).toEqual({ ok: true, to: next });
      at = next;
    }
  });

  it("refuses every skip and every tool that is not next, at every position (exhaustive)", () => {
    const back: Record<string, string[]> = {
      "run_quality_checks (post_implementation)": ["instruct_implementation"],
      "run_quality_checks (post_refactor)": ["instruct_refactor"],
      run_validation: ["instruct_feature_file", "instruct_unit_tests", "mark_complete"],
      instruct_implementation: ["instruct_unit_tests"],
    };
    for (let at = 0; at < SEQUENCE.length; at += 1) {
      const forward = at + 1 < SEQUENCE.length ? [(SEQUENCE[at + 1] as { tool: StepTool }).tool] : [];
      const allowedTools = new Set<string>([...forward, ...(back[describeStep(at)] ?? [])]);
      for (const tool of TOOLS) {
        const decision = decideTransition(at, false, tool);
        expect(decision.ok, `${tool} after ${describeStep(at)}`).toBe(allowedTools.has(tool));
        if (!decision.ok) {
          expect(decision.allowedNext.sort()).toEqual([...allowedTools].sort());
          expect(decision.message).toMatch(new RegExp(`^${tool} is not allowed after`));
        }
      }
    }
  });

  it("goes back where allowed and resumes the full sequence from there", () => {
    const qcImpl = position("run_quality_checks (post_implementation)");
    const back = decideTransition(qcImpl, false, "instruct_implementation");
    expect(back).toEqual({ ok: true, to: position("instruct_implementation") });
    expect(decideTransition(position("instruct_implementation"), false, "commit")).toEqual({
      ok: true,
      to: position("commit (post_implementation)"),
    });
    expect(decideTransition(position("run_validation"), false, "instruct_feature_file")).toEqual({
      ok: true,
      to: position("instruct_feature_file"),
    });
    expect(decideTransition(position("instruct_feature_file"), false, "commit")).toEqual({
      ok: true,
      to: position("commit (post_feature_file)"),
    });
  });

  it("blocks forward progress after failing checks after implementation or refactor, offering only the way back", () => {
    for (const description of ["run_quality_checks (post_implementation)", "run_quality_checks (post_refactor)"]) {
      const at = position(description);
      expect(BLOCKING_CHECKS.has(at)).toBe(true);
      const forward = decideTransition(at, true, (SEQUENCE[at + 1] as { tool: StepTool }).tool);
      expect(forward.ok).toBe(false);
      if (!forward.ok) {
        expect(forward.allowedNext).toHaveLength(1);
        expect(forward.message).toMatch(/block progress/);
      }
    }
  });

  it("completes from the commit after validation or straight from run_validation, and nothing follows mark_complete", () => {
    expect(decideTransition(position("commit (post_validation)"), false, "mark_complete").ok).toBe(true);
    expect(decideTransition(position("run_validation"), false, "mark_complete").ok).toBe(true);
    expect(allowedPositions(SEQUENCE.length - 1, false)).toEqual([]);
  });
});
