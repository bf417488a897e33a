import type { AdmissionQueue } from "../admission/admission-queue.js";
import type { AgentRunner } from "../agents/agent-runner.js";
import type { ContainerDriver } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";
import { callWorkerTool, toolText } from "../workers/in-container.js";
import type { Worker } from "../workers/worker.js";
import type { Task } from "./task.js";
import type { Step } from "./transitions.js";
import { QUALITY_TOOL } from "../../contract/wire.js";

const COMMIT_SCRIPT =
  'git add -A && if git diff --cached --quiet; then echo "NOTHING"; else git commit -q -m "$WORKCELL_COMMIT_MESSAGE" && git rev-parse HEAD; fi';

/** What the work behind a step needs: the worker's container, its agent, and the host's queue for heavy work. */
export interface StepActionDeps {
  readonly driver: ContainerDriver;
  readonly agents: AgentRunner;
  readonly admission?: AdmissionQueue;
}

/** The running worker a step acts on. */
export interface StepWorker {
  readonly worker: Worker;
  readonly containerId: string;
}

/** What a step's work did: whether it blocks the task, what to record, and what to answer. */
export interface StepOutcome {
  blocked: boolean;
  commitSha?: string;
  quality?: unknown;
  coverage?: number;
  answer: Record<string, unknown>;
}

/** Does the work behind `target` in the worker: dispatch a prompt, commit, or run the quality checks. */
export async function performStep(
  deps: StepActionDeps,
  task: Task,
  target: Step,
  input: { prompt?: string | undefined },
  running: StepWorker,
): Promise<StepOutcome> {
  switch (target.tool) {
    case "instruct_feature_file":
    case "instruct_step_defs":
    case "instruct_unit_tests":
    case "instruct_implementation":
    case "instruct_refactor":
    case "run_validation":
      return dispatchPrompt(deps, target, input.prompt, running);
    case "commit":
      return commitWork(deps, task, target, running);
    case "run_quality_checks":
      return runQualityChecks(deps, task, target, running);
    case "mark_complete":
      return { blocked: false, answer: {} };
    default:
      throw new AppError("internal", `No action for ${target.tool}.`);
  }
}

async function dispatchPrompt(
  deps: StepActionDeps,
  target: Step,
  prompt: string | undefined,
  { worker, containerId }: StepWorker,
): Promise<StepOutcome> {
  if (prompt === undefined || prompt.trim() === "")
    throw new AppError("invalid_input", `${target.tool} needs a prompt for the worker's agent.`);
  await deps.agents.dispatch(worker, containerId, prompt, target.tool);
  return {
    blocked: false,
    answer: {
      dispatched: true,
      message: "The prompt was given to the worker's agent; check_worker_status shows when it is done.",
    },
  };
}

async function commitWork(
  deps: StepActionDeps,
  task: Task,
  target: Step,
  { worker, containerId }: StepWorker,
): Promise<StepOutcome> {
  if (deps.agents.status(worker.id).busy)
    throw new AppError(
      "conflict",
      `The agent of worker ${worker.id} is still working; commit once check_worker_status says it is not busy.`,
    );
  const message = `${target.context}: ${task.goal}`.slice(0, 500);
  const result = await deps.driver.exec(containerId, {
    argv: ["bash", "-c", COMMIT_SCRIPT],
    env: [`WORKCELL_COMMIT_MESSAGE=${message}`],
  });
  const out = result.stdout.toString("utf8").trim();
  if (result.exitCode !== 0)
    throw new AppError(
      "conflict",
      `Committing in worker ${worker.id} failed: ${result.stderr.toString("utf8").trim().slice(0, 1_000)}`,
    );
  if (out === "NOTHING")
    return { blocked: false, answer: { committed: false, message: "Nothing to commit; recorded as a no-op." } };
  return { blocked: false, commitSha: out, answer: { committed: true, commit_sha: out } };
}

async function runQualityChecks(
  deps: StepActionDeps,
  task: Task,
  target: Step,
  { worker, containerId }: StepWorker,
): Promise<StepOutcome> {
  const release = deps.admission === undefined ? () => undefined : await deps.admission.acquire(worker.id);
  const result = await callWorkerTool(deps.driver, containerId, QUALITY_TOOL, {
    context: target.context,
    ...(task.coverage === undefined ? {} : { baselineCoverage: task.coverage }),
  }).finally(release);
  const structured = (result.structuredContent ?? {}) as {
    passed?: boolean;
    blocking?: boolean;
    checks?: unknown;
    coverage?: number;
  };
  const blocked = structured.blocking === true;
  return {
    blocked,
    quality: structured,
    ...(target.context === "post_implementation" && typeof structured.coverage === "number"
      ? { coverage: structured.coverage }
      : {}),
    answer: {
      passed: structured.passed === true,
      blocking: blocked,
      checks: structured.checks ?? [],
      report: toolText(result),
      ...(blocked ? { message: "The checks failed and block progress: go back and fix it." } : {}),
    },
  };
}
