import { z } from "zod";
import { resolveInside } from "../fs/resolve-inside.js";
import type { ToolRegistry } from "../registry.js";
import { capText } from "../shell/output-collector.js";
import { runProcess, type RunResult } from "../shell/run-process.js";
import { errorResult, textResult, ToolInputError } from "../tool-result.js";

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
    env: { GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", PAGER: "cat", GIT_EDITOR: "true" },
    ...(signal === undefined ? {} : { signal }),
  });
}

/** Refuses a ref, revision or name that git could read as an option. */
export function assertNotOption(value: string, field: string): string {
  if (value.startsWith("-"))
    throw new ToolInputError(`${field} must be a name or revision, not an option; received "${value}".`);
  if (/[\0\n]/.test(value)) throw new ToolInputError(`${field} must not contain NUL or newline characters.`);
  return value;
}

function failure(action: string, run: RunResult) {
  const detail = (run.stderr || run.stdout || run.spawnError || "").trim();
  return errorResult(`git ${action} failed (exit code ${run.exitCode}): ${detail}`);
}

function output(run: RunResult, empty: string, maxChars = MAX_DIFF_CHARS) {
  return textResult(capText(run.stdout, maxChars).text.trimEnd() || empty);
}

/** Paths inside the workspace as git pathspecs (relative, confinement-checked). */
async function toPathspecs(root: string, files: readonly string[]): Promise<string[]> {
  const specs: string[] = [];
  for (const file of files) specs.push((await resolveInside(root, file)).relative || ".");
  return specs;
}

const refField = (what: string) => z.string().min(1).max(256).describe(what);

/** Registers the git tools; all run git inside the container on the worker's own clone. */
export function registerGitTools(registry: ToolRegistry, root: string): void {
  registry.register({
    name: "git_status",
    description: "Working tree status: branch, staged, unstaged and untracked files.",
    inputSchema: {},
    annotations: { readOnlyHint: true },
    handler: async (_args, { signal }) => {
      const run = await runGit(root, ["status", "--short", "--branch"], signal);
      return run.exitCode === 0 ? output(run, "(clean)") : failure("status", run);
    },
  });

  registry.register({
    name: "git_diff",
    description:
      "Changes as a unified diff: unstaged by default, staged with staged=true, or between the working tree and a target commit/branch.",
    inputSchema: {
      staged: z.boolean().optional().describe("Show staged changes (git diff --cached)"),
      target: refField("Commit, branch or tag to diff against").optional(),
      contextLines: z.number().int().min(0).max(100).optional().describe("Lines of context (default 3)"),
    },
    annotations: { readOnlyHint: true },
    handler: async ({ staged, target, contextLines }, { signal }) => {
      const args = ["diff", "--no-ext-diff", "--no-color", `--unified=${contextLines ?? 3}`];
      if (staged) args.push("--cached");
      if (target !== undefined) args.push("--end-of-options", assertNotOption(target, "target"));
      args.push("--");
      const run = await runGit(root, args, signal);
      return run.exitCode === 0 ? output(run, "(no changes)") : failure("diff", run);
    },
  });

  registry.register({
    name: "git_add",
    description: "Stage files for the next commit.",
    inputSchema: {
      files: z.array(z.string().min(1)).min(1).describe('Paths relative to /workspace; "." stages everything'),
    },
    annotations: { destructiveHint: false, idempotentHint: true },
    handler: async ({ files }, { signal }) => {
      const specs = await toPathspecs(root, files);
      const run = await runGit(root, ["add", "--", ...specs], signal);
      return run.exitCode === 0 ? textResult(`Staged ${specs.join(", ")}`) : failure("add", run);
    },
  });

  registry.register({
    name: "git_reset",
    description: "Unstage files (all staged changes when no files are given). The working tree is not touched.",
    inputSchema: { files: z.array(z.string().min(1)).optional().describe("Paths to unstage; omit for everything") },
    annotations: { destructiveHint: false, idempotentHint: true },
    handler: async ({ files }, { signal }) => {
      const specs = files === undefined ? [] : await toPathspecs(root, files);
      const run = await runGit(root, ["reset", "--quiet", "--", ...specs], signal);
      return run.exitCode === 0
        ? textResult(`Unstaged ${specs.length === 0 ? "everything" : specs.join(", ")}`)
        : failure("reset", run);
    },
  });

  registry.register({
    name: "git_commit",
    description: "Commit the staged changes. Answers the new commit's sha.",
    inputSchema: { message: z.string().min(1).describe("Commit message") },
    outputSchema: { sha: z.string(), summary: z.string() },
    annotations: { destructiveHint: false },
    handler: async ({ message }, { signal }) => {
      const run = await runGit(root, ["commit", "--message", message], signal);
      if (run.exitCode !== 0) {
        const nothing = /nothing (added )?to commit|no changes added/.test(run.stdout);
        return nothing ? errorResult("Nothing to commit: stage changes with git_add first.") : failure("commit", run);
      }
      const sha = (await runGit(root, ["rev-parse", "HEAD"], signal)).stdout.trim();
      const summary = run.stdout.split("\n")[0] ?? "";
      return textResult(`Committed ${sha}\n${summary}`, { sha, summary });
    },
  });

  registry.register({
    name: "git_log",
    description: "Recent commits on the current branch, newest first, optionally within a date range.",
    inputSchema: {
      maxCount: z.number().int().min(1).max(1000).optional().describe("Number of commits (default 10)"),
      since: z
        .string()
        .max(100)
        .optional()
        .describe('Only commits after this date, e.g. "2 weeks ago" or "2024-01-31"'),
      until: z.string().max(100).optional().describe("Only commits before this date"),
    },
    annotations: { readOnlyHint: true },
    handler: async ({ maxCount, since, until }, { signal }) => {
      const args = ["log", `--max-count=${maxCount ?? 10}`, "--format=%H %an <%ae> %ad%n    %s", "--date=iso-strict"];
      if (since !== undefined) args.push(`--since=${since}`);
      if (until !== undefined) args.push(`--until=${until}`);
      const run = await runGit(root, args, signal);
      return run.exitCode === 0 ? output(run, "(no commits)") : failure("log", run);
    },
  });

  registry.register({
    name: "git_show",
    description: "A commit's message, stat and patch (or any object: a tag, a tree, rev:path).",
    inputSchema: { revision: refField("Commit, tag or rev:path to show") },
    annotations: { readOnlyHint: true },
    handler: async ({ revision }, { signal }) => {
      const run = await runGit(
        root,
        [
          "show",
          "--no-ext-diff",
          "--no-color",
          "--stat",
          "--patch",
          "--end-of-options",
          assertNotOption(revision, "revision"),
        ],
        signal,
      );
      return run.exitCode === 0 ? output(run, "(empty)") : failure("show", run);
    },
  });

  registry.register({
    name: "git_branch",
    description:
      "List branches: local (default), remote or all; optionally only those that contain (or do not contain) a commit.",
    inputSchema: {
      branchType: z.enum(["local", "remote", "all"]).optional().describe("Which branches to list"),
      contains: refField("Only branches containing this commit").optional(),
      notContains: refField("Only branches not containing this commit").optional(),
    },
    annotations: { readOnlyHint: true },
    handler: async ({ branchType, contains, notContains }, { signal }) => {
      const args = ["branch", "--no-color"];
      if (branchType === "remote") args.push("--remotes");
      if (branchType === "all") args.push("--all");
      if (contains !== undefined) args.push(`--contains=${assertNotOption(contains, "contains")}`);
      if (notContains !== undefined) args.push(`--no-contains=${assertNotOption(notContains, "notContains")}`);
      const run = await runGit(root, args, signal);
      return run.exitCode === 0 ? output(run, "(no branches)") : failure("branch", run);
    },
  });

  registry.register({
    name: "git_create_branch",
    description: "Create a branch (from the current commit, or from baseBranch). Does not switch to it.",
    inputSchema: {
      branchName: refField("Name of the new branch"),
      baseBranch: refField("Start point (default: HEAD)").optional(),
    },
    annotations: { destructiveHint: false },
    handler: async ({ branchName, baseBranch }, { signal }) => {
      const name = await checkBranchName(root, branchName, signal);
      const args = ["branch", "--", name];
      if (baseBranch !== undefined) args.push(assertNotOption(baseBranch, "baseBranch"));
      const run = await runGit(root, args, signal);
      return run.exitCode === 0
        ? textResult(`Created branch ${name}${baseBranch ? ` from ${baseBranch}` : ""}`)
        : failure("branch", run);
    },
  });

  registry.register({
    name: "git_checkout",
    description: "Switch to an existing branch. Refuses when local changes would be overwritten.",
    inputSchema: { branchName: refField("Branch to switch to") },
    annotations: { destructiveHint: false },
    handler: async ({ branchName }, { signal }) => {
      const name = await checkBranchName(root, branchName, signal);
      const run = await runGit(root, ["switch", "--no-guess", "--", name], signal);
      return run.exitCode === 0 ? textResult(`Switched to branch ${name}`) : failure("switch", run);
    },
  });

  registry.register({
    name: "git_stash",
    description:
      "Stash work in progress: push (with an optional message, untracked files included), pop, apply, list or drop.",
    inputSchema: {
      action: z.enum(["push", "pop", "apply", "list", "drop"]).describe("What to do"),
      message: z.string().max(500).optional().describe("push: a description of the stash"),
      index: z.number().int().min(0).optional().describe("pop/apply/drop: which stash (default 0, the newest)"),
    },
    annotations: { destructiveHint: true },
    handler: async ({ action, message, index }, { signal }) => {
      const args = ["stash", action];
      if (action === "push") {
        args.push("--include-untracked");
        if (message !== undefined) args.push("--message", message);
      } else if (action !== "list") args.push(`stash@{${index ?? 0}}`);
      const run = await runGit(root, args, signal);
      return run.exitCode === 0
        ? output(run, action === "list" ? "(no stashes)" : `git stash ${action} done`)
        : failure(`stash ${action}`, run);
    },
  });
}

async function checkBranchName(root: string, name: string, signal: AbortSignal): Promise<string> {
  assertNotOption(name, "branchName");
  const run = await runGit(root, ["check-ref-format", "--branch", name], signal);
  if (run.exitCode !== 0) throw new ToolInputError(`"${name}" is not a valid branch name.`);
  return name;
}
