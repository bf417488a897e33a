import { randomBytes } from "node:crypto";
import type { AdmissionQueue } from "../admission/admission-queue.js";
import type { AgentRunner } from "../agents/agent-runner.js";
import { isoNow, systemClock, type Clock } from "../clock/clock.js";
import type { ContainerDriver } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";
import type { StateStore } from "../store/state-store.js";
import { KeyedLock } from "../workers/keyed-lock.js";
import type { Worker } from "../workers/worker.js";
import type { Task, Transition } from "./task.js";
import {
  allowedPositions,
  decideTransition,
  describeStep,
  SEQUENCE,
  type Step,
  type StepTool,
  type TransitionDecision,
} from "./transitions.js";
import { performStep } from "./step-actions.js";

/** What a refused out-of-order call answers. */
export interface SequenceViolation {
  error: "sequence_violation";
  task_id: string;
  current_stage: string;
  attempted_stage: string;
  allowed_next: string[];
  message: string;
  transition_history: Transition[];
}

/** What a successful step answers. */
export interface StepResult {
  task_id: string;
  stage: string;
  allowed_next: string[];
  [key: string]: unknown;
}

/** What the pipeline needs from the rest of the control plane. */
export interface PipelineDeps {
  readonly store: StateStore;
  readonly driver: ContainerDriver;
  readonly agents: AgentRunner;
  /** The host-wide queue the quality checks (heavy work) wait in, if any. */
  readonly admission?: AdmissionQueue;
  requireRunning(workerId: string): Promise<{ worker: Worker; containerId: string }>;
  event(workerId: string, type: string, data: Record<string, unknown>): Promise<unknown>;
  /** Where the time of transitions comes from (absent: the system clock). */
  readonly clock?: Clock;
}

const HINTS: Record<Task["type"], string> = {
  greenfield: "Greenfield: describe the new behaviour as a feature file first, then build it outside-in.",
  bugfix: "Bugfix: write a scenario that reproduces the bug first; it must fail before the fix and pass after.",
  change: "Change: describe how the existing behaviour changes in the feature file before touching the code.",
};

/**
 * The BDD pipeline enforcer. Every call is checked against the transition table and
 * recorded in the same locked step, so two concurrent calls cannot both advance a task;
 * the work behind each step (dispatching a prompt, committing, running the quality checks)
 * really happens in the worker.
 */
export class PipelineService {
  private readonly lock = new KeyedLock();
  private readonly clock: Clock;

  constructor(private readonly deps: PipelineDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  async acceptGoal(input: {
    goal: string;
    type: Task["type"];
    worker: Worker;
  }): Promise<StepResult & { hint: string; next: string }> {
    // Every stage after this one prompts the worker's agent: without one the task could only stall.
    if (input.worker.agent === undefined) {
      throw new AppError(
        "conflict",
        `Worker ${input.worker.name} (${input.worker.id}) has no agent, so nothing would carry out the task's prompts. Spawn a worker with agent: {"command": [...]} and accept the goal there.`,
        { details: { worker: input.worker.id, reason: "no_agent" } },
      );
    }
    await this.deps.requireRunning(input.worker.id);
    const now = isoNow(this.clock);
    const task: Task = {
      id: `task_${randomBytes(6).toString("hex")}`,
      workerId: input.worker.id,
      goal: input.goal,
      type: input.type,
      position: 0,
      blocked: false,
      status: "active",
      transitions: [{ from_stage: "start", to_stage: "accept_goal", created_at: now }],
      commits: 0,
      createdAt: now,
    };
    await this.deps.store.putTask(task);
    await this.deps.event(task.workerId, "pipeline_transition", {
      taskId: task.id,
      from: "start",
      to: "accept_goal",
      goal: task.goal,
    });
    return {
      task_id: task.id,
      stage: "accept_goal",
      next: "instruct_feature_file",
      allowed_next: ["instruct_feature_file"],
      hint: HINTS[input.type],
    };
  }

  /** Performs `tool` on the task if the table allows it now; otherwise answers the violation. */
  async step(
    tool: Exclude<StepTool, "accept_goal">,
    input: { task_id: string; prompt?: string | undefined; summary?: string | undefined },
  ): Promise<StepResult | SequenceViolation> {
    return this.lock.run(input.task_id, async () => {
      const task = await this.load(input.task_id);
      const decision: TransitionDecision =
        task.status === "complete"
          ? { ok: false, allowedNext: [], message: `Task ${task.id} is complete; nothing follows mark_complete.` }
          : decideTransition(task.position, task.blocked, tool);
      if (!decision.ok) {
        return {
          error: "sequence_violation",
          task_id: task.id,
          current_stage: describeStep(task.position),
          attempted_stage: tool,
          allowed_next: decision.allowedNext,
          message: decision.message,
          transition_history: task.transitions,
        };
      }
      const target = SEQUENCE[decision.to] as Step;
      const running = await this.deps.requireRunning(task.workerId);
      const outcome = await performStep(this.deps, task, target, input, running);
      const transition: Transition = {
        from_stage: describeStep(task.position),
        to_stage: describeStep(decision.to),
        created_at: isoNow(this.clock),
        ...(input.prompt === undefined ? {} : { prompt: input.prompt }),
        ...(outcome.commitSha === undefined ? {} : { commit_sha: outcome.commitSha }),
        ...(outcome.quality === undefined ? {} : { quality_results: outcome.quality }),
      };
      const updated: Task = {
        ...task,
        position: decision.to,
        blocked: outcome.blocked,
        transitions: [...task.transitions, transition],
        commits: task.commits + (outcome.commitSha === undefined ? 0 : 1),
        ...(outcome.coverage === undefined ? {} : { coverage: outcome.coverage }),
        ...(target.tool === "mark_complete"
          ? {
              status: "complete" as const,
              completedAt: transition.created_at,
              ...(input.summary === undefined ? {} : { summary: input.summary }),
            }
          : {}),
      };
      await this.deps.store.putTask(updated);
      await this.deps.event(task.workerId, "pipeline_transition", {
        taskId: task.id,
        from: transition.from_stage,
        to: transition.to_stage,
        commitSha: transition.commit_sha,
        blocked: updated.blocked,
      });
      const allowed =
        updated.status === "complete"
          ? []
          : [...new Set(allowedPositions(updated.position, updated.blocked).map((p) => (SEQUENCE[p] as Step).tool))];
      const base: StepResult = {
        task_id: task.id,
        stage: transition.to_stage,
        allowed_next: allowed,
        ...outcome.answer,
      };
      if (target.tool === "mark_complete") {
        return {
          ...base,
          status: "complete",
          total_transitions: updated.transitions.length,
          total_commits: updated.commits,
          duration: Date.parse(transition.created_at) - Date.parse(task.createdAt),
        };
      }
      return base;
    });
  }

  async get(id: string): Promise<Task> {
    return this.load(id);
  }

  async list(): Promise<Task[]> {
    return (await this.deps.store.listTasks()).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** The worker's task that is not complete, if any. */
  async activeTask(workerId: string): Promise<Task | undefined> {
    return (await this.list()).find((task) => task.workerId === workerId && task.status === "active");
  }

  private async load(id: string): Promise<Task> {
    const task = await this.deps.store.getTask(id);
    if (task === undefined)
      throw new AppError(
        "not_found",
        `No task with id "${id.slice(0, 64)}". accept_goal starts one; list the tasks to see their ids.`,
        { details: { action: "list_tasks" } },
      );
    return task;
  }
}
