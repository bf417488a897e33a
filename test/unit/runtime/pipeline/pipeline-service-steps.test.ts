import { describe, expect, it } from "vitest";
import { AdmissionQueue } from "../../../../runtime/admission/admission-queue.js";
import type { SequenceViolation, StepResult } from "../../../../runtime/pipeline/pipeline-service.js";
import { reply } from "../../../../runtime/testing/fake-process.js";
import { GOAL, SHA, setUp, TO_IMPLEMENTATION_CHECKS, type Step } from "./pipeline-service-harness.js";

describe("PipelineService", () => {
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
