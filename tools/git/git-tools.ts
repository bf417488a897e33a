import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { resolveInside } from "../fs/resolve-inside.js";
import { capText } from "../shell/output-collector.js";
import { runProcess, type RunResult } from "../shell/run-process.js";
import { errorResult, guarded, textResult, ToolInputError } from "../tool-result.js";

const GIT_TIMEOUT_MS = 120_000;
const MAX_GIT_OUTPUT_BYTES = 4 * 1024 * 1024;
const MAX_DIFF_CHARS = 100_000;

/** Runs git in the workspace; a failing command is data, returned as a RunResult. */
export function runGit(root: string, args: readonly string[], signal?: AbortSignal): Promise<RunResult> {
  return runProcess({
    command: ["git", ...args],
    cwd: root,
    timeoutMs: GIT_TIMEOUT_MS,
    maxOutputBytes: MAX_GIT_OUTPUT_BYTES,
    env: { GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", PAGER: "cat" },
    ...(signal === undefined ? {} : { signal }),
  });
}

function gitFailure(action: string, run: RunResult) {
  const detail = (run.stderr || run.stdout || run.spawnError || "").trim();
  return errorResult(`git ${action} failed (exit code ${run.exitCode}): ${detail}`);
}

/** Registers the core git tools; they run git inside the container, in /workspace. */
export function registerGitTools(server: McpServer, root: string): void {
  server.registerTool(
    "git_status",
    {
      description: "Show the working tree status: branch, staged, unstaged and untracked files.",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    guarded(async (_args, { signal }) => {
      const run = await runGit(root, ["status", "--short", "--branch"], signal);
      if (run.exitCode !== 0) return gitFailure("status", run);
      return textResult(run.stdout.trim() || "(clean)");
    }),
  );

  server.registerTool(
    "git_diff",
    {
      description: "Show changes as a unified diff: unstaged by default, staged with staged=true, or against a target commit/branch.",
      inputSchema: {
        staged: z.boolean().optional().describe("Show staged changes (git diff --cached)"),
        target: z.string().optional().describe("Commit, branch or tag to diff against"),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ staged, target }, { signal }) => {
      if (target !== undefined && target.startsWith("-")) {
        throw new ToolInputError(`target must be a commit, branch or tag, not an option; received "${target}".`);
      }
      const args = ["diff", "--no-ext-diff", "--no-color"];
      if (staged) args.push("--cached");
      if (target !== undefined) args.push(target);
      args.push("--");
      const run = await runGit(root, args, signal);
      if (run.exitCode !== 0) return gitFailure("diff", run);
      const capped = capText(run.stdout, MAX_DIFF_CHARS);
      return textResult(capped.text || "(no changes)");
    }),
  );

  server.registerTool(
    "git_add",
    {
      description: "Stage files for the next commit.",
      inputSchema: {
        files: z.array(z.string().min(1)).min(1).describe('Paths relative to /workspace; "." stages everything'),
      },
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    guarded(async ({ files }, { signal }) => {
      const paths: string[] = [];
      for (const file of files) paths.push((await resolveInside(root, file)).relative || ".");
      const run = await runGit(root, ["add", "--", ...paths], signal);
      if (run.exitCode !== 0) return gitFailure("add", run);
      return textResult(`Staged ${paths.join(", ")}`);
    }),
  );

  server.registerTool(
    "git_commit",
    {
      description: "Commit the staged changes. Answers the new commit's sha.",
      inputSchema: { message: z.string().min(1).describe("Commit message") },
      outputSchema: { sha: z.string(), summary: z.string() },
      annotations: { destructiveHint: false },
    },
    guarded(async ({ message }, { signal }) => {
      const run = await runGit(root, ["commit", "--message", message], signal);
      if (run.exitCode !== 0) {
        const nothing = /nothing (added )?to commit|no changes added/.test(run.stdout);
        return nothing ? errorResult("Nothing to commit: stage changes with git_add first.") : gitFailure("commit", run);
      }
      const head = await runGit(root, ["rev-parse", "HEAD"], signal);
      const sha = head.stdout.trim();
      const summary = run.stdout.split("\n")[0] ?? "";
      return textResult(`Committed ${sha}\n${summary}`, { sha, summary });
    }),
  );

  server.registerTool(
    "git_log",
    {
      description: "Show recent commits on the current branch, newest first.",
      inputSchema: { maxCount: z.number().int().min(1).max(1000).optional().describe("Number of commits (default 10)") },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ maxCount }, { signal }) => {
      const run = await runGit(root, ["log", `--max-count=${maxCount ?? 10}`, "--format=%H %an <%ae> %ad%n    %s", "--date=iso-strict"], signal);
      if (run.exitCode !== 0) return gitFailure("log", run);
      return textResult(run.stdout.trim() || "(no commits)");
    }),
  );
}
