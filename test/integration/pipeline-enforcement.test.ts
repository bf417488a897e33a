import { describe, expect, it } from "vitest";
import { startTestPlane } from "./helpers/control-plane.js";
import { connectOrchestrator, PROMPTS, useOrchestratorSuite } from "./helpers/orchestrator.js";

// How the pipeline holds its sequence: refused skips, blocking checks, back-transitions, concurrent
// calls and a restart; pipeline.test.ts runs the whole sequence.
const suite = useOrchestratorSuite();
const { call, spawnAgentWorker, waitIdle, instruct } = suite;

describe("pipeline enforcement", () => {
  it("refuses every skip with the sequence_violation answer", async () => {
    const worker = await spawnAgentWorker("pipe-skips");
    const task = (
      await call<{ task_id: string }>("accept_goal", { goal: "Skip ahead", type: "change", worker: worker.id })
    ).body.task_id;
    for (const tool of [
      "commit",
      "run_quality_checks",
      "instruct_step_defs",
      "instruct_implementation",
      "run_validation",
      "mark_complete",
    ]) {
      const refused = await call<Record<string, unknown>>(tool, { task_id: task, prompt: "x", summary: "x" });
      expect(refused.isError).toBe(true);
      expect(Object.keys(refused.body).sort()).toEqual([
        "allowed_next",
        "attempted_stage",
        "current_stage",
        "error",
        "message",
        "task_id",
        "transition_history",
      ]);
      expect(refused.body).toMatchObject({
        error: "sequence_violation",
        task_id: task,
        current_stage: "accept_goal",
        attempted_stage: tool,
        allowed_next: ["instruct_feature_file"],
      });
      expect(refused.body.message).toMatch(/Call instruct_feature_file next/);
    }
  });

  it("a failing suite after implementation blocks progress until it is fixed through the back-transition", async () => {
    const worker = await spawnAgentWorker("pipe-block");
    const task = (
      await call<{ task_id: string }>("accept_goal", { goal: "Greet", type: "greenfield", worker: worker.id })
    ).body.task_id;
    for (const [tool, prompt] of [
      ["instruct_feature_file", PROMPTS.feature],
      ["instruct_step_defs", PROMPTS.steps],
      ["instruct_unit_tests", PROMPTS.unitTests],
    ] as const) {
      await instruct(tool, task, prompt, worker.id);
      await call("commit", { task_id: task });
      await call("run_quality_checks", { task_id: task });
    }
    await instruct("instruct_implementation", task, PROMPTS.buggyImplementation, worker.id);
    await call("commit", { task_id: task });
    const failed = await call<{ passed: boolean; blocking: boolean; allowed_next: string[] }>("run_quality_checks", {
      task_id: task,
    });
    expect(failed.body).toMatchObject({ passed: false, blocking: true, allowed_next: ["instruct_implementation"] });
    const refused = await call<{ error: string; allowed_next: string[]; message: string }>("instruct_refactor", {
      task_id: task,
      prompt: "x",
    });
    expect(refused.body).toMatchObject({ error: "sequence_violation", allowed_next: ["instruct_implementation"] });
    expect(refused.body.message).toMatch(/block progress/);

    await instruct("instruct_implementation", task, PROMPTS.implementation, worker.id);
    await call("commit", { task_id: task });
    expect(
      (await call<{ passed: boolean; allowed_next: string[] }>("run_quality_checks", { task_id: task })).body,
    ).toMatchObject({ passed: true, allowed_next: ["instruct_refactor", "instruct_implementation"] });
  }, 240_000);

  it("going back from run_validation to instruct_unit_tests resumes the full sequence from there", async () => {
    const worker = await spawnAgentWorker("pipe-resume");
    const task = (
      await call<{ task_id: string }>("accept_goal", { goal: "Greet again", type: "change", worker: worker.id })
    ).body.task_id;
    const phases: [string, string][] = [
      ["instruct_feature_file", PROMPTS.feature],
      ["instruct_step_defs", PROMPTS.steps],
      ["instruct_unit_tests", PROMPTS.unitTests],
      ["instruct_implementation", PROMPTS.implementation],
      ["instruct_refactor", PROMPTS.refactor],
    ];
    for (const [tool, prompt] of phases) {
      await instruct(tool, task, prompt, worker.id);
      await call("commit", { task_id: task });
      await call("run_quality_checks", { task_id: task });
    }
    await instruct("run_validation", task, PROMPTS.validation, worker.id);
    const back = await call<{ stage: string; allowed_next: string[] }>("instruct_unit_tests", {
      task_id: task,
      prompt: 'FILE test/extra.test.js\nconst test = require("node:test");\ntest("extra", () => {});\nEND',
    });
    expect(back.body).toMatchObject({ stage: "instruct_unit_tests", allowed_next: ["commit"] });
    await waitIdle(worker.id);
    for (const [tool, prompt] of phases.slice(3)) {
      await call("commit", { task_id: task });
      await call("run_quality_checks", { task_id: task });
      await instruct(tool, task, prompt, worker.id);
    }
    await call("commit", { task_id: task });
    await call("run_quality_checks", { task_id: task });
    await instruct("run_validation", task, PROMPTS.validation, worker.id);
    const done = await call<{ status: string; total_transitions: number }>("mark_complete", {
      task_id: task,
      summary: "done twice",
    });
    expect(done.body).toMatchObject({ status: "complete", total_transitions: 28 });
  }, 240_000);

  it("two concurrent calls advance a task once, and a restart keeps the state", async () => {
    const worker = await spawnAgentWorker("pipe-back");
    const task = (await call<{ task_id: string }>("accept_goal", { goal: "Greet", type: "change", worker: worker.id }))
      .body.task_id;
    const both = await Promise.all([
      call("instruct_feature_file", { task_id: task, prompt: PROMPTS.feature }),
      call("instruct_feature_file", { task_id: task, prompt: PROMPTS.feature }),
    ]);
    expect(both.filter((answer) => !answer.isError)).toHaveLength(1);
    expect(both.filter((answer) => (answer.body as { error?: string }).error === "sequence_violation")).toHaveLength(1);
    await waitIdle(worker.id);
    await call("commit", { task_id: task });
    await call("run_quality_checks", { task_id: task });

    await suite.client.close();
    await suite.test.plane.close();
    suite.test = await startTestPlane(suite.test.dataDir);
    suite.client = await connectOrchestrator(suite.test);
    const after = await suite.test.api<{ transitions: { to_stage: string }[] }>("GET", `/v1/tasks/${task}`);
    expect(after.body.transitions.at(-1)?.to_stage).toBe("run_quality_checks (post_feature_file)");
    const next = await call<{ error?: string; allowed_next?: string[] }>("commit", { task_id: task });
    expect(next.body).toMatchObject({ error: "sequence_violation", allowed_next: ["instruct_step_defs"] });
  }, 240_000);
});
