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
/** The goal every task in these tests is given. */
export const GOAL = "totals round half-even";
/** The sha the fake `git commit` answers with. */
export const SHA = "f".repeat(40);

/** A step a task takes after accept_goal. */
export type Step = Exclude<StepTool, "accept_goal">;
type Quality = { passed: boolean; blocking: boolean; coverage?: number };

/** A pipeline on the fakes: a running container whose agent, `git commit` and quality checks are fake programs. */
export async function setUp(options: { admission?: AdmissionQueue } = {}) {
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
export const TO_IMPLEMENTATION_CHECKS: Step[] = [
  ...(
    ["instruct_feature_file", "instruct_step_defs", "instruct_unit_tests", "instruct_implementation"] as const
  ).flatMap((instruct): Step[] => [instruct, "commit", "run_quality_checks"]),
];

/** Whether a step was refused as out of sequence. */
export const isViolation = (answer: StepResult | SequenceViolation): answer is SequenceViolation =>
  answer.error === "sequence_violation";
