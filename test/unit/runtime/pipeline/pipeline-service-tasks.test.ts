import { describe, expect, it } from "vitest";
import { GOAL, setUp, TO_IMPLEMENTATION_CHECKS, type Step } from "./pipeline-service-harness.js";

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
});
