import { describe, expect, it } from "vitest";
import { AdmissionQueue } from "../../../../runtime/admission/admission-queue.js";
import { AgentRunner } from "../../../../runtime/agents/agent-runner.js";
import type { ContainerSpec } from "../../../../runtime/docker/container-driver.js";
import { AppError } from "../../../../runtime/errors/app-error.js";
import {
  PipelineService,
  type SequenceViolation,
  type StepResult,
} from "../../../../runtime/pipeline/pipeline-service.js";
import type { StepTool } from "../../../../runtime/pipeline/transitions.js";
import { readAll, reply } from "../../../../runtime/testing/fake-process.js";
import { InMemoryContainerDriver } from "../../../../runtime/testing/in-memory-driver.js";
import { InMemoryStateStore } from "../../../../runtime/testing/in-memory-store.js";
import { ManualClock } from "../../../../runtime/testing/manual-clock.js";
import { toolsArgv } from "../../../../runtime/workers/in-container.js";
import { sampleWorker } from "../fixtures.js";

const IMAGE = "workcell-sandbox:test";
const AGENT = ["fake-agent", "--batch"];
const QUALITY_CHECKS = toolsArgv("call", "quality_checks");
const GOAL = "totals round half-even";
const SHA = "f".repeat(40);

type Step = Exclude<StepTool, "accept_goal">;
type Quality = { passed: boolean; blocking: boolean; coverage?: number };

/** A pipeline on the fakes: a running container whose agent, `git commit` and quality checks are fake programs. */
async function setUp(options: { admission?: AdmissionQueue } = {}) {
  const clock = new ManualClock();
  const store = new InMemoryStateStore();
  const driver = new InMemoryContainerDriver({ images: [IMAGE] });
  const containerId = await driver.create(containerSpec());
  await driver.start(containerId);
  const worker = sampleWorker({ agent: { command: AGENT }, model: "model-x", containerId });
  const prompts: { prompt: string; stage: string | undefined; model: string | undefined }[] = [];
  const agentGate = { hold: Promise.resolve() };
  driver.onExec(AGENT, async ({ stdin, stdout, env }) => {
    const prompt = (await readAll(stdin)).toString();
    const value = (name: string) => env.findLast((entry) => entry.startsWith(`${name}=`))?.slice(name.length + 1);
    prompts.push({ prompt, stage: value("WORKCELL_STAGE"), model: value("WORKCELL_MODEL") });
    await agentGate.hold;
    stdout.write("done\n");
  });
  const commit = { answer: reply({ stdout: `${SHA}\n` }) };
  driver.onExec(["bash", "-c"], (process) => commit.answer(process));
  const quality = { result: { passed: true, blocking: false } as Quality, inputs: [] as unknown[] };
  driver.onExec(QUALITY_CHECKS, async ({ stdin, stdout }) => {
    quality.inputs.push(JSON.parse((await readAll(stdin)).toString()));
    stdout.write(
      `${JSON.stringify({ content: [{ type: "text", text: "2 checks" }], structuredContent: { ...quality.result, checks: ["lint", "tests"] } })}\n`,
    );
  });
  const events: { workerId: string; type: string; data: Record<string, unknown> }[] = [];
  const event = async (workerId: string, type: string, data: Record<string, unknown>) =>
    void events.push({ workerId, type, data });
  const agents = new AgentRunner(driver, event);
  const workerState = { running: true };
  const pipeline = new PipelineService({
    store,
    driver,
    agents,
    clock,
    event,
    ...(options.admission === undefined ? {} : { admission: options.admission }),
    requireRunning: async (workerId) => {
      if (!workerState.running) throw new AppError("conflict", `Worker ${workerId} is stopped.`);
      return { worker, containerId };
    },
  });
  /** Performs a step, then waits for the agent it may have started to finish (as an orchestrator polls check_worker_status). */
  const step = async (tool: Step, taskId: string, input: { prompt?: string; summary?: string } = {}) => {
    const answer = await pipeline.step(tool, {
      task_id: taskId,
      ...(tool.startsWith("instruct_") || tool === "run_validation" ? { prompt: `please ${tool}` } : {}),
      ...input,
    });
    await agents.waitIdle(worker.id, 1_000);
    return answer;
  };
  const start = async () => (await pipeline.acceptGoal({ goal: GOAL, type: "bugfix", worker })).task_id;
  return {
    clock,
    store,
    driver,
    worker,
    pipeline,
    agents,
    prompts,
    agentGate,
    commit,
    quality,
    events,
    workerState,
    step,
    start,
  };
}

function containerSpec(): ContainerSpec {
  return {
    name: "workcell-pipeline",
    image: IMAGE,
    user: "0:0",
    capAdd: [],
    env: [],
    labels: {},
    workingDir: "/workspace",
    command: ["sleep", "infinity"],
    mounts: [],
    tmpfs: {},
    networkMode: "none",
    memoryMb: 512,
    cpus: 1,
    pids: 128,
    logMaxBytes: 1024,
  };
}

/** The steps from accept_goal up to and including the checks after the implementation. */
const TO_IMPLEMENTATION_CHECKS: Step[] = [
  ...(
    ["instruct_feature_file", "instruct_step_defs", "instruct_unit_tests", "instruct_implementation"] as const
  ).flatMap((instruct): Step[] => [instruct, "commit", "run_quality_checks"]),
];

const isViolation = (answer: StepResult | SequenceViolation): answer is SequenceViolation =>
  answer.error === "sequence_violation";

describe("PipelineService", () => {
  it("refuses a goal for a worker without an agent and stores no task", async () => {
    const { pipeline, store, worker } = await setUp();
    const { agent: _agent, ...withoutAgent } = worker;
    await expect(pipeline.acceptGoal({ goal: GOAL, type: "bugfix", worker: withoutAgent })).rejects.toMatchObject({
      code: "conflict",
      details: { reason: "no_agent" },
    });
    expect(await store.listTasks()).toEqual([]);
  });

  it("starts a task at accept_goal with its type's hint, stamped with the clock's time, and announces it", async () => {
    const { pipeline, store, worker, events } = await setUp();
    const answer = await pipeline.acceptGoal({ goal: GOAL, type: "greenfield", worker });
    expect(answer).toMatchObject({
      stage: "accept_goal",
      next: "instruct_feature_file",
      allowed_next: ["instruct_feature_file"],
      hint: expect.stringMatching(/^Greenfield/),
    });
    expect(await store.getTask(answer.task_id)).toMatchObject({
      workerId: worker.id,
      goal: GOAL,
      position: 0,
      status: "active",
      commits: 0,
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    expect(events).toEqual([
      {
        workerId: worker.id,
        type: "pipeline_transition",
        data: { taskId: answer.task_id, from: "start", to: "accept_goal", goal: GOAL },
      },
    ]);
  });

  it("answers a sequence violation for a step out of order and leaves the task as it was", async () => {
    const { step, start, store } = await setUp();
    const taskId = await start();
    const before = await store.getTask(taskId);
    const answer = await step("commit", taskId);
    expect(answer).toMatchObject({
      error: "sequence_violation",
      current_stage: "accept_goal",
      attempted_stage: "commit",
      allowed_next: ["instruct_feature_file"],
      message: expect.stringMatching(/commit is not allowed after accept_goal/),
    });
    expect(await store.getTask(taskId)).toEqual(before);
  });

  it("gives an instruct step's prompt to the worker's agent with its stage and model, and records the prompt", async () => {
    const { step, start, store, prompts } = await setUp();
    const taskId = await start();
    const answer = await step("instruct_feature_file", taskId, { prompt: "Describe the rounding rule as a scenario." });
    expect(answer).toMatchObject({ stage: "instruct_feature_file", allowed_next: ["commit"], dispatched: true });
    expect(prompts).toEqual([
      { prompt: "Describe the rounding rule as a scenario.", stage: "instruct_feature_file", model: "model-x" },
    ]);
    expect((await store.getTask(taskId))?.transitions.at(-1)).toMatchObject({
      from_stage: "accept_goal",
      to_stage: "instruct_feature_file",
      prompt: "Describe the rounding rule as a scenario.",
    });
  });

  it("refuses an instruct step without a prompt and records nothing", async () => {
    const { pipeline, start, store, prompts } = await setUp();
    const taskId = await start();
    await expect(pipeline.step("instruct_feature_file", { task_id: taskId, prompt: "  " })).rejects.toMatchObject({
      code: "invalid_input",
    });
    expect(await store.getTask(taskId)).toMatchObject({ position: 0, transitions: [{ to_stage: "accept_goal" }] });
    expect(prompts).toEqual([]);
  });

  it("commits the worker's changes with the stage and goal as the message, and records the commit", async () => {
    const { step, start, store, driver } = await setUp();
    const taskId = await start();
    await step("instruct_feature_file", taskId);
    const answer = await step("commit", taskId);
    expect(answer).toMatchObject({
      stage: "commit (post_feature_file)",
      committed: true,
      commit_sha: SHA,
      allowed_next: ["run_quality_checks"],
    });
    expect(driver.execs.filter((exec) => exec.argv[0] === "bash")).toMatchObject([
      { kind: "exec", env: [`WORKCELL_COMMIT_MESSAGE=post_feature_file: ${GOAL}`] },
    ]);
    expect(await store.getTask(taskId)).toMatchObject({
      commits: 1,
      transitions: expect.arrayContaining([expect.objectContaining({ commit_sha: SHA })]),
    });
  });

  it("records a commit with nothing to commit as a no-op without a sha", async () => {
    const { step, start, store, commit } = await setUp();
    commit.answer = reply({ stdout: "NOTHING\n" });
    const taskId = await start();
    await step("instruct_feature_file", taskId);
    expect(await step("commit", taskId)).toMatchObject({ committed: false });
    const task = await store.getTask(taskId);
    expect(task).toMatchObject({ commits: 0, position: 2 });
    expect(task?.transitions.at(-1)).not.toHaveProperty("commit_sha");
  });

  it("refuses a commit that fails in the worker, saying why, and records nothing", async () => {
    const { step, start, store, commit } = await setUp();
    commit.answer = reply({ exitCode: 128, stderr: "fatal: unable to write new index file\n" });
    const taskId = await start();
    await step("instruct_feature_file", taskId);
    await expect(step("commit", taskId)).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/unable to write new index file/),
    });
    expect(await store.getTask(taskId)).toMatchObject({ position: 1, commits: 0 });
  });

  it("refuses to commit while the agent is still working, and commits once it is done", async () => {
    const { pipeline, step, start, store, agentGate, agents, worker } = await setUp();
    let release: () => void = () => undefined;
    agentGate.hold = new Promise((resolve) => (release = resolve));
    const taskId = await start();
    await pipeline.step("instruct_feature_file", { task_id: taskId, prompt: "write it" });
    await expect(pipeline.step("commit", { task_id: taskId })).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/still working/),
    });
    expect(await store.getTask(taskId)).toMatchObject({ position: 1 });
    release();
    expect(await agents.waitIdle(worker.id, 1_000)).toBe(true);
    expect(await step("commit", taskId)).toMatchObject({ committed: true });
  });

  it("lets only one of two simultaneous calls of the same step advance the task", async () => {
    const { pipeline, step, start, store, driver } = await setUp();
    const taskId = await start();
    await step("instruct_feature_file", taskId);
    const answers = await Promise.all([
      pipeline.step("commit", { task_id: taskId }),
      pipeline.step("commit", { task_id: taskId }),
    ]);
    expect(answers.filter(isViolation)).toHaveLength(1);
    expect(answers.filter((answer) => !isViolation(answer))).toMatchObject([{ committed: true }]);
    expect(driver.execs.filter((exec) => exec.argv[0] === "bash")).toHaveLength(1);
    expect(await store.getTask(taskId)).toMatchObject({ position: 2, commits: 1 });
  });

  it("does not advance a task whose worker is not running", async () => {
    const { step, start, store, workerState } = await setUp();
    const taskId = await start();
    workerState.running = false;
    await expect(step("instruct_feature_file", taskId)).rejects.toMatchObject({ code: "conflict" });
    expect(await store.getTask(taskId)).toMatchObject({ position: 0 });
  });

  it("blocks progress after failing implementation checks until the implementation is redone and its checks pass", async () => {
    const { step, start, store, quality } = await setUp();
    const taskId = await start();
    for (const tool of TO_IMPLEMENTATION_CHECKS.slice(0, -1)) await step(tool, taskId);
    quality.result = { passed: false, blocking: true };
    expect(await step("run_quality_checks", taskId)).toMatchObject({
      passed: false,
      blocking: true,
      message: expect.stringMatching(/block progress/),
    });
    expect(await store.getTask(taskId)).toMatchObject({ position: 12, blocked: true });
    const refused = await step("instruct_refactor", taskId);
    expect(refused).toMatchObject({
      error: "sequence_violation",
      allowed_next: ["instruct_implementation"],
      message: expect.stringMatching(/block progress/),
    });
    quality.result = { passed: true, blocking: false, coverage: 81.5 };
    for (const tool of ["instruct_implementation", "commit", "run_quality_checks"] as const) await step(tool, taskId);
    expect(await store.getTask(taskId)).toMatchObject({ position: 12, blocked: false, coverage: 81.5 });
    expect(await step("instruct_refactor", taskId)).toMatchObject({ stage: "instruct_refactor" });
  });

  it("reports what the quality checks answered, and hands the implementation's coverage to the refactor checks as their baseline", async () => {
    const { step, start, quality } = await setUp();
    const taskId = await start();
    quality.result = { passed: true, blocking: false, coverage: 90 };
    let last: StepResult | SequenceViolation | undefined;
    for (const tool of [...TO_IMPLEMENTATION_CHECKS, "instruct_refactor", "commit", "run_quality_checks"] as Step[])
      last = await step(tool, taskId);
    expect(last).toMatchObject({
      stage: "run_quality_checks (post_refactor)",
      passed: true,
      blocking: false,
      checks: ["lint", "tests"],
      report: "2 checks",
    });
    expect(quality.inputs.at(-2)).toEqual({ context: "post_implementation" });
    expect(quality.inputs.at(-1)).toEqual({ context: "post_refactor", baselineCoverage: 90 });
  });

  it("completes a task straight from validation, with its summary, totals and the time it took on the clock", async () => {
    const { step, start, store, clock, pipeline, worker } = await setUp();
    const taskId = await start();
    for (const tool of [
      ...TO_IMPLEMENTATION_CHECKS,
      "instruct_refactor",
      "commit",
      "run_quality_checks",
      "run_validation",
    ] as Step[]) {
      clock.advance(60_000);
      await step(tool, taskId);
    }
    clock.advance(30_000);
    const done = await step("mark_complete", taskId, { summary: "rounding fixed" });
    expect(done).toMatchObject({
      stage: "mark_complete",
      status: "complete",
      allowed_next: [],
      total_transitions: 18,
      total_commits: 5,
      duration: 16 * 60_000 + 30_000,
    });
    expect(await store.getTask(taskId)).toMatchObject({
      status: "complete",
      summary: "rounding fixed",
      completedAt: new Date(clock.now()).toISOString(),
    });
    expect(await step("commit", taskId)).toMatchObject({
      error: "sequence_violation",
      allowed_next: [],
      message: expect.stringMatching(/is complete/),
    });
    expect(await pipeline.activeTask(worker.id)).toBeUndefined();
  });

  it("finds a task by id, lists tasks oldest first and names a worker's active one", async () => {
    const { pipeline, start, clock, worker } = await setUp();
    clock.set(Date.UTC(2026, 2, 1));
    const later = await start();
    clock.set(Date.UTC(2026, 1, 1));
    const earlier = await start();
    expect((await pipeline.list()).map((task) => task.id)).toEqual([earlier, later]);
    expect((await pipeline.get(later)).createdAt).toBe("2026-03-01T00:00:00.000Z");
    expect((await pipeline.activeTask(worker.id))?.id).toBe(earlier);
    await expect(pipeline.get("task_missing")).rejects.toMatchObject({ code: "not_found" });
  });

  it("runs the quality checks only once the host admits them, and gives the slot back", async () => {
    const admission = new AdmissionQueue(1);
    const { pipeline, step, start, quality } = await setUp({ admission });
    const taskId = await start();
    await step("instruct_feature_file", taskId);
    await step("commit", taskId);
    const held = await admission.acquire("someone-else");
    const checks = pipeline.step("run_quality_checks", { task_id: taskId });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(quality.inputs).toEqual([]);
    held();
    expect(await checks).toMatchObject({ stage: "run_quality_checks (post_feature_file)", passed: true });
    expect(admission.status()).toMatchObject({ running: 0, queued: 0 });
  });
});
