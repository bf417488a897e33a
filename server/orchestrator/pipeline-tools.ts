import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { StepTool } from "../../runtime/pipeline/transitions.js";
import type { OrchestratorDeps } from "./orchestrator-deps.js";
import { answerErrorsAsToolResults, json, workerRef } from "./tool-io.js";

/** Registers the pipeline tools: accept_goal, then one tool per step of a task. */
export function registerPipelineTools(server: McpServer, deps: OrchestratorDeps): void {
  const { workers, pipeline } = deps;
  const { lookup, tasks } = workers;
  server.registerTool(
    "accept_goal",
    {
      description:
        "Start a task on a worker. Every task then follows: instruct_feature_file, commit, run_quality_checks, instruct_step_defs, commit, run_quality_checks, instruct_unit_tests, commit, run_quality_checks, instruct_implementation, commit, run_quality_checks, instruct_refactor, commit, run_quality_checks, run_validation, commit, mark_complete.",
      inputSchema: {
        goal: z.string().min(1).max(10_000).describe("What the task must achieve"),
        type: z.enum(["greenfield", "bugfix", "change"]).describe("Kind of task"),
        worker: workerRef,
      },
      annotations: { destructiveHint: false },
    },
    ({ goal, type, worker }) =>
      answerErrorsAsToolResults(async () => {
        const target = await lookup.resolve(worker);
        // A worker whose last task ended takes the new goal as a new task.
        const fresh =
          (target.gate?.task ?? null) !== null && target.agent !== undefined
            ? await tasks.startNewTask(target.id)
            : target;
        return json(await pipeline.acceptGoal({ goal, type, worker: fresh }));
      })(),
  );

  const step = (tool: Exclude<StepTool, "accept_goal">, description: string, withPrompt: boolean) =>
    server.registerTool(
      tool,
      {
        description,
        inputSchema: {
          task_id: z.string().min(1).describe("The task from accept_goal"),
          ...(withPrompt
            ? { prompt: z.string().min(1).max(100_000).describe("The prompt for the worker's agent") }
            : {}),
          ...(tool === "mark_complete" ? { summary: z.string().max(10_000).describe("What was achieved") } : {}),
        },
        annotations: { destructiveHint: false },
      },
      (args: { task_id: string; prompt?: string; summary?: string }) =>
        answerErrorsAsToolResults(async () => {
          const result = await pipeline.step(tool, args);
          return json(result, "error" in result);
        })(),
    );
  step("instruct_feature_file", "Give the worker's agent the prompt for the feature file (Gherkin).", true);
  step("instruct_step_defs", "Give the worker's agent the prompt for the step definitions.", true);
  step("instruct_unit_tests", "Give the worker's agent the prompt for the unit tests (they should fail first).", true);
  step("instruct_implementation", "Give the worker's agent the prompt for the implementation.", true);
  step("instruct_refactor", "Give the worker's agent the prompt for the refactor.", true);
  step("run_validation", "Give the worker's agent the prompt for the final validation.", true);
  step("commit", "Commit the worker's changes for the current stage (a no-op when there is nothing to commit).", false);
  step(
    "run_quality_checks",
    "Run the quality checks that fit the current stage in the worker; failures after implementation or refactor block progress.",
    false,
  );
  step(
    "mark_complete",
    "Complete the task (only after the commit that follows validation, or after run_validation).",
    false,
  );
}
