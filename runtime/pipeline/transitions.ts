/** The pipeline's tools, in the order every task follows. */
export type StepTool =
  | "accept_goal"
  | "instruct_feature_file"
  | "instruct_step_defs"
  | "instruct_unit_tests"
  | "instruct_implementation"
  | "instruct_refactor"
  | "run_validation"
  | "commit"
  | "run_quality_checks"
  | "mark_complete";

/** Which stage a commit or a quality check follows. */
export type StepContext =
  | "post_feature_file"
  | "post_step_defs"
  | "post_unit_tests"
  | "post_implementation"
  | "post_refactor"
  | "post_validation";

/** One position of the sequence. */
export interface Step {
  readonly tool: StepTool;
  readonly context?: StepContext;
}

const phase = (instruct: StepTool, context: StepContext): Step[] => [
  { tool: instruct },
  { tool: "commit", context },
  { tool: "run_quality_checks", context },
];

/** The full sequence; a task's position is an index into it. */
export const SEQUENCE: readonly Step[] = Object.freeze([
  { tool: "accept_goal" },
  ...phase("instruct_feature_file", "post_feature_file"),
  ...phase("instruct_step_defs", "post_step_defs"),
  ...phase("instruct_unit_tests", "post_unit_tests"),
  ...phase("instruct_implementation", "post_implementation"),
  ...phase("instruct_refactor", "post_refactor"),
  { tool: "run_validation" },
  { tool: "commit", context: "post_validation" },
  { tool: "mark_complete" },
]);

const indexOf = (tool: StepTool, context?: StepContext) =>
  SEQUENCE.findIndex((step) => step.tool === tool && step.context === context);

const AFTER_IMPLEMENTATION_CHECKS = indexOf("run_quality_checks", "post_implementation");
const AFTER_REFACTOR_CHECKS = indexOf("run_quality_checks", "post_refactor");
const RUN_VALIDATION = indexOf("run_validation");
const INSTRUCT_IMPLEMENTATION = indexOf("instruct_implementation");

/** Back-transitions: from a position, which earlier positions may be returned to. */
const BACK: ReadonlyMap<number, readonly number[]> = new Map([
  [AFTER_IMPLEMENTATION_CHECKS, [INSTRUCT_IMPLEMENTATION]],
  [AFTER_REFACTOR_CHECKS, [indexOf("instruct_refactor")]],
  [RUN_VALIDATION, [indexOf("instruct_feature_file"), indexOf("instruct_unit_tests")]],
  [INSTRUCT_IMPLEMENTATION, [indexOf("instruct_unit_tests")]],
]);

/** Positions whose failing quality checks block moving forward. */
export const BLOCKING_CHECKS: ReadonlySet<number> = new Set([AFTER_IMPLEMENTATION_CHECKS, AFTER_REFACTOR_CHECKS]);

/**
 * The positions a task at `position` may move to: the next one (unless failing blocking
 * checks hold it), its back-transitions, and `mark_complete` straight from `run_validation`.
 * Pure.
 */
export function allowedPositions(position: number, blocked: boolean): number[] {
  const allowed: number[] = [];
  if (position + 1 < SEQUENCE.length && !blocked) allowed.push(position + 1);
  if (position === RUN_VALIDATION) allowed.push(SEQUENCE.length - 1);
  allowed.push(...(BACK.get(position) ?? []));
  return allowed;
}

/** How a position is named to the caller: `commit (post_unit_tests)`. */
export function describeStep(position: number): string {
  const step = SEQUENCE[position] as Step;
  return step.context === undefined ? step.tool : `${step.tool} (${step.context})`;
}

/** The outcome of attempting a tool at a position. */
export type TransitionDecision = { ok: true; to: number } | { ok: false; allowedNext: string[]; message: string };

/**
 * Decides whether calling `tool` moves a task at `position` forward (or back), and where.
 * Pure: the whole transition table lives here.
 */
export function decideTransition(position: number, blocked: boolean, tool: StepTool): TransitionDecision {
  const allowed = allowedPositions(position, blocked);
  const target = allowed.find((candidate) => SEQUENCE[candidate]?.tool === tool);
  if (target !== undefined) return { ok: true, to: target };
  const allowedNext = [...new Set(allowed.map((candidate) => (SEQUENCE[candidate] as Step).tool))];
  const where = describeStep(position);
  const reason = blocked ? " (the last quality checks failed and block progress)" : "";
  return {
    ok: false,
    allowedNext,
    message: `${tool} is not allowed after ${where}${reason}. Call ${allowedNext.length === 1 ? allowedNext[0] : `one of ${allowedNext.join(", ")}`} next.`,
  };
}
