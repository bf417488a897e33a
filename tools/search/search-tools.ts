import { z } from "zod";
import type { AccessControl } from "../permissions/access-control.js";
import type { ToolRegistry } from "../registry.js";
import { runProcess } from "../shell/run-process.js";
import { errorResult, textResult } from "../tool-result.js";
import { capFileList, renderRipgrepJson } from "./ripgrep-output.js";

const MAX_GLOB_RESULTS = 200;
const MAX_GREP_MATCHES = 100;
const SEARCH_TIMEOUT_MS = 60_000;
const MAX_RG_OUTPUT_BYTES = 16 * 1024 * 1024;

/** Registers glob and grep; both run ripgrep inside the workspace and honour .gitignore. */
export function registerSearchTools(registry: ToolRegistry, access: AccessControl): void {
  const root = access.workspace;
  registry.register({
    name: "glob",
    description: `Find files by glob pattern (e.g. "src/**/*.ts"), honouring .gitignore. Sorted, at most ${MAX_GLOB_RESULTS} results.`,
    inputSchema: {
      pattern: z.string().min(1).describe('Glob pattern relative to the search directory, e.g. "**/*.test.ts"'),
      path: z.string().optional().describe("Directory to search, relative to /workspace (default: the workspace)"),
      includeIgnored: z.boolean().optional().describe("Also list files .gitignore excludes (default false)"),
    },
    annotations: { readOnlyHint: true },
    handler: async ({ pattern, path, includeIgnored }) => {
      const base = await access.resolve(path ?? ".", "read");
      const run = await runProcess({
        command: [
          "rg",
          "--files",
          "--hidden",
          ...(includeIgnored ? ["--no-ignore"] : []),
          "--glob",
          "!.git",
          "--glob",
          pattern,
        ],
        cwd: base.absolute,
        timeoutMs: SEARCH_TIMEOUT_MS,
        maxOutputBytes: MAX_RG_OUTPUT_BYTES,
      });
      if (run.exitCode !== 0 && run.exitCode !== 1)
        return errorResult(`glob failed: ${run.stderr.trim() || run.spawnError}`);
      const { files, capped, total } = capFileList(run.stdout.split("\n"), MAX_GLOB_RESULTS);
      if (files.length === 0) return textResult(`No files match "${pattern}".`, { files: [], total: 0 });
      const note = capped
        ? `\n[showing the first ${MAX_GLOB_RESULTS} of ${total} files; narrow the pattern or the path]`
        : "";
      return textResult(files.join("\n") + note, { files, total, capped });
    },
  });

  registry.register({
    name: "grep",
    description: `Search file contents with a regular expression (ripgrep syntax), honouring .gitignore. Answers file:line:content, at most ${MAX_GREP_MATCHES} matches.`,
    inputSchema: {
      pattern: z.string().min(1).describe("Regular expression (Rust regex syntax)"),
      path: z.string().optional().describe("File or directory to search, relative to /workspace"),
      glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts"'),
      ignoreCase: z.boolean().optional().describe("Case-insensitive search"),
      contextLines: z.number().int().min(0).max(20).optional().describe("Lines of context around each match"),
      includeIgnored: z.boolean().optional().describe("Also search files .gitignore excludes (default false)"),
    },
    annotations: { readOnlyHint: true },
    handler: async ({ pattern, path, glob, ignoreCase, contextLines, includeIgnored }) => {
      const target = await access.resolve(path ?? ".", "read");
      const args = ["rg", "--json", "--hidden", "--glob", "!.git"];
      if (includeIgnored) args.push("--no-ignore");
      if (glob !== undefined) args.push("--glob", glob);
      if (ignoreCase) args.push("--ignore-case");
      if (contextLines !== undefined) args.push("--context", String(contextLines));
      args.push("--regexp", pattern, "--", target.relative === "" ? "." : target.relative);
      const run = await runProcess({
        command: args,
        cwd: root,
        timeoutMs: SEARCH_TIMEOUT_MS,
        maxOutputBytes: MAX_RG_OUTPUT_BYTES,
      });
      if (run.exitCode === 1) return textResult(`No matches for /${pattern}/.`, { matches: 0 });
      if (run.exitCode !== 0)
        return errorResult(`grep failed: ${run.stderr.trim() || run.spawnError}. Check the regular expression.`);
      const rendered = renderRipgrepJson(run.stdout, MAX_GREP_MATCHES, (contextLines ?? 0) > 0);
      const note = rendered.capped
        ? `\n[stopped at ${MAX_GREP_MATCHES} matches; narrow the pattern, path or glob]`
        : "";
      return textResult(rendered.text + note, { matches: rendered.matches, capped: rendered.capped });
    },
  });
}
