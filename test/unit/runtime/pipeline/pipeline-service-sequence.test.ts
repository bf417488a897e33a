import { describe, expect, it } from "vitest";
import { isViolation, setUp, TO_IMPLEMENTATION_CHECKS } from "./pipeline-service-harness.js";

describe("PipelineService", () => {
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
});
