import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AgentRunner } from "../../runtime/agents/agent-runner.js";
import type { ContainerDriver } from "../../runtime/docker/container-driver.js";
import { AppError } from "../../runtime/errors/app-error.js";
import type { PipelineService } from "../../runtime/pipeline/pipeline-service.js";
import type { StepTool } from "../../runtime/pipeline/transitions.js";
import { callWorkerTool } from "../../runtime/workers/in-container.js";
import { TEMPLATES } from "../../runtime/workers/templates.js";
import type { Workers } from "../../runtime/workers/workers.js";
import { AgentSpecSchema, type Worker } from "../../runtime/workers/worker.js";

/** What the orchestrator's tools work with. */
export interface OrchestratorDeps {
  readonly workers: Pick<Workers, "lookup" | "lifecycle" | "sessions" | "tasks">;
  readonly pipeline: PipelineService;
  readonly agents: AgentRunner;
  readonly driver: ContainerDriver;
  /** The control plane's own address, for each worker's MCP URL. */
  readonly baseUrl: () => string;
}

/** The most patch text diff_worker answers; the file list is always complete. */
const MAX_PATCH_CHARS = 200_000;

const json = (value: unknown, isError = false): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
  structuredContent: value as Record<string, unknown>,
  ...(isError ? { isError: true } : {}),
});

/** Runs a tool body; whatever it throws comes back as an isError result with its message. */
const answerErrorsAsToolResults = (body: () => Promise<CallToolResult>) => async (): Promise<CallToolResult> => {
  try {
    return await body();
  } catch (error) {
    const message = error instanceof AppError ? error.message : error instanceof Error ? error.message : String(error);
    return { content: [{ type: "text", text: `Error: ${message}` }], isError: true };
  }
};

const workerRef = z.string().min(1).max(100).describe("Worker id or name");

/** Registers the worker lifecycle, inspection and pipeline tools on the orchestrator's server. */
export function registerOrchestratorTools(server: McpServer, deps: OrchestratorDeps): void {
  const { workers, pipeline, agents, driver } = deps;
  const { lookup, lifecycle, sessions, tasks } = workers;
  const summarize = (worker: Worker) => ({
    id: worker.id,
    name: worker.name,
    status: worker.status,
    branch: worker.branch,
    repo: worker.repo,
    mcpUrl: `${deps.baseUrl()}/v1/workers/${worker.id}/mcp`,
    model: worker.model ?? null,
    ...(worker.error ? { error: worker.error } : {}),
  });

  server.registerTool(
    "spawn_worker",
    {
      description: `Create a worker: an isolated clone of repo on its own branch in its own sandbox. Templates: ${Object.entries(
        TEMPLATES,
      )
        .map(([name, t]) => `${name} (${t.description})`)
        .join("; ")}.`,
      inputSchema: {
        name: z
          .string()
          .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be kebab-case")
          .max(40)
          .describe("Kebab-case name, also the branch prefix; unique among the workers"),
        repo: z.string().min(1).describe("Absolute path of the git repository on the control plane's host"),
        baseRef: z.string().optional().describe("Branch, tag or commit to start from (default HEAD)"),
        template: z
          .enum(Object.keys(TEMPLATES) as [string, ...string[]])
          .optional()
          .describe("Preset of permissions and resources"),
        model: z.string().optional().describe("Model for the worker's agent (WORKCELL_MODEL)"),
        agent: AgentSpecSchema.optional().describe("The agent program to run inside the worker"),
      },
      annotations: { destructiveHint: false },
    },
    (args) =>
      answerErrorsAsToolResults(async () => {
        const template = args.template === undefined ? undefined : TEMPLATES[args.template];
        const worker = await lifecycle.create({
          repo: args.repo,
          name: args.name,
          ...(args.baseRef === undefined ? {} : { baseRef: args.baseRef }),
          ...(args.model === undefined ? {} : { model: args.model }),
          ...(args.agent === undefined ? {} : { agent: args.agent }),
          ...(template === undefined ? {} : { permissions: template.permissions, resources: template.resources }),
        });
        return json({ ...summarize(worker), template: args.template ?? null });
      })(),
  );

  server.registerTool(
    "list_workers",
    { description: "All workers with their status.", inputSchema: {}, annotations: { readOnlyHint: true } },
    () =>
      answerErrorsAsToolResults(async () =>
        json({
          workers: (await lookup.list()).map((worker) => ({
            ...summarize(worker),
            busy: agents.status(worker.id).busy,
          })),
        }),
      )(),
  );

  server.registerTool(
    "stop_worker",
    {
      description: "Stop a worker's container (the workspace is kept).",
      inputSchema: { worker: workerRef },
      annotations: { destructiveHint: false },
    },
    ({ worker }) =>
      answerErrorsAsToolResults(async () => {
        const target = await lookup.resolve(worker);
        agents.stop(target.id);
        return json(summarize(await lifecycle.stop(target.id)));
      })(),
  );

  server.registerTool(
    "remove_worker",
    {
      description: "Remove a worker; its workspace is deleted unless delete_workspace is false.",
      inputSchema: {
        worker: workerRef,
        delete_workspace: z.boolean().optional().describe("Delete the workspace (default true)"),
      },
      annotations: { destructiveHint: true },
    },
    ({ worker, delete_workspace }) =>
      answerErrorsAsToolResults(async () => {
        const target = await lookup.resolve(worker);
        agents.stop(target.id);
        return json(await lifecycle.remove(target.id, { keepWorkspace: delete_workspace === false }));
      })(),
  );

  server.registerTool(
    "health_check",
    {
      description: "Find workers whose container crashed; with fix, restart them on their workspace.",
      inputSchema: { fix: z.boolean().optional().describe("Restart the crashed workers") },
      annotations: { destructiveHint: false },
    },
    ({ fix }) =>
      answerErrorsAsToolResults(async () => {
        const crashed = (await lookup.list()).filter(
          (worker) => worker.status === "failed" && worker.gate?.task?.status !== "failed",
        );
        const fixed: string[] = [];
        if (fix)
          for (const worker of crashed)
            if ((await lifecycle.start(worker.id)).status === "running") fixed.push(worker.id);
        return json({ healthy: crashed.length === 0, crashed: crashed.map(summarize), fixed });
      })(),
  );

  server.registerTool(
    "set_worker_model",
    {
      description: "Set the model the worker's agent uses from its next prompt on.",
      inputSchema: { worker: workerRef, model: z.string().min(1).max(200).describe("Model name") },
      annotations: { idempotentHint: true },
    },
    ({ worker, model }) =>
      answerErrorsAsToolResults(async () =>
        json(summarize(await tasks.setModel((await lookup.resolve(worker)).id, model))),
      )(),
  );

  server.registerTool(
    "check_worker_status",
    {
      description:
        "Status, whether its agent is busy, its last output, what changed since the base, and the active task.",
      inputSchema: { worker: workerRef },
      annotations: { readOnlyHint: true },
    },
    ({ worker }) =>
      answerErrorsAsToolResults(async () => {
        const target = await lookup.resolve(worker);
        const agent = agents.status(target.id);
        const diff = target.status === "running" ? await sessions.diff(target.id).catch(() => undefined) : undefined;
        const task = await pipeline.activeTask(target.id);
        return json({
          status: target.status,
          busy: agent.busy,
          last_message: agent.lastMessage,
          files_changed: diff?.files.length ?? 0,
          additions: diff?.files.reduce((sum, file) => sum + file.additions, 0) ?? 0,
          deletions: diff?.files.reduce((sum, file) => sum + file.deletions, 0) ?? 0,
          active_task:
            task === undefined
              ? null
              : { task_id: task.id, goal: task.goal, stage: task.transitions.at(-1)?.to_stage ?? "accept_goal" },
        });
      })(),
  );

  server.registerTool(
    "diff_worker",
    {
      description: `What changed in a worker since its base: every file with its status and line counts, and the patch (committed, staged, unstaged and new files; the patch is cut at ${MAX_PATCH_CHARS} characters).`,
      inputSchema: { worker: workerRef },
      annotations: { readOnlyHint: true },
    },
    ({ worker }) =>
      answerErrorsAsToolResults(async () => {
        const diff = await sessions.diff((await lookup.resolve(worker)).id);
        const truncated = diff.patch.length > MAX_PATCH_CHARS;
        return json({ ...diff, patch: truncated ? diff.patch.slice(0, MAX_PATCH_CHARS) : diff.patch, truncated });
      })(),
  );

  server.registerTool(
    "export_worker",
    {
      description:
        "Bring a worker's branch into its source repository as a branch (the worker's own branch name unless branch is given). An existing branch is only moved forward; a branch checked out in the repository is never moved. Uncommitted files are not exported: uncommittedFiles counts them.",
      inputSchema: {
        worker: workerRef,
        branch: z
          .string()
          .min(1)
          .max(250)
          .optional()
          .describe("Branch to create or move forward in the source repository"),
      },
      annotations: { destructiveHint: false },
    },
    ({ worker, branch }) =>
      answerErrorsAsToolResults(async () => json(await sessions.export((await lookup.resolve(worker)).id, branch)))(),
  );

  const inside = (tool: string, args: Record<string, unknown>, ref: string) =>
    answerErrorsAsToolResults(async () => {
      const { worker, containerId } = await lookup.requireRunning((await lookup.resolve(ref)).id);
      const result = await callWorkerTool(driver, containerId, tool, args);
      return { content: result.content as CallToolResult["content"], ...(result.isError ? { isError: true } : {}) };
    })();
  server.registerTool(
    "read_worker_file",
    {
      description: "Read a file in a worker's workspace (inside its sandbox, confined to the workspace).",
      inputSchema: {
        worker: workerRef,
        path: z.string().describe("Path relative to the workspace"),
        offset: z.number().int().min(1).optional().describe("1-based first line"),
        limit: z.number().int().min(1).optional().describe("Lines to read"),
      },
      annotations: { readOnlyHint: true },
    },
    ({ worker, ...args }) => inside("read_file", args, worker),
  );
  server.registerTool(
    "glob_worker",
    {
      description: "Find files in a worker's workspace by glob.",
      inputSchema: {
        worker: workerRef,
        pattern: z.string().min(1).describe("Glob, e.g. **/*.ts"),
        path: z.string().optional().describe("Sub-directory"),
      },
      annotations: { readOnlyHint: true },
    },
    ({ worker, ...args }) => inside("glob", args, worker),
  );
  server.registerTool(
    "grep_worker",
    {
      description: "Search a worker's workspace with a regular expression.",
      inputSchema: {
        worker: workerRef,
        pattern: z.string().min(1).describe("Regular expression"),
        path: z.string().optional().describe("Sub-path"),
        glob: z.string().optional().describe("File filter"),
        ignoreCase: z.boolean().optional().describe("Case-insensitive"),
      },
      annotations: { readOnlyHint: true },
    },
    ({ worker, ...args }) => inside("grep", args, worker),
  );

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
