import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { callWorkerTool } from "../../runtime/workers/in-container.js";
import type { OrchestratorDeps } from "./orchestrator-deps.js";
import { answerErrorsAsToolResults, json, workerRef } from "./tool-io.js";

/** The most patch text diff_worker answers; the file list is always complete. */
const MAX_PATCH_CHARS = 200_000;

/** Registers the tools that look into a worker's workspace: status, diff, export and file reads. */
export function registerWorkspaceTools(server: McpServer, deps: OrchestratorDeps): void {
  const { workers, pipeline, agents, driver } = deps;
  const { lookup, sessions } = workers;
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
      const { containerId } = await lookup.requireRunning((await lookup.resolve(ref)).id);
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
}
