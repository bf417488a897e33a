import { z } from "zod";
import type { Admit } from "../approvals/admission-client.js";
import type { AccessControl } from "../permissions/access-control.js";
import type { ToolRegistry } from "../registry.js";
import { textResult, type ToolCallContext } from "../tool-result.js";
import { capText } from "./output-collector.js";
import { readOomKills } from "./oom-kills.js";
import { runProcess } from "./run-process.js";
import { CommandOutcomeSchema } from "../../contract/control.js";

/** Default and ceiling for the shell tool's timeout. */
export const DEFAULT_SHELL_TIMEOUT_MS = 60_000;
export const MAX_SHELL_TIMEOUT_MS = 30 * 60_000;
/** Characters of each stream the agent gets back, by default and at most. */
export const DEFAULT_SHELL_OUTPUT_CHARS = 10_000;
export const MAX_SHELL_OUTPUT_CHARS = 200_000;

const PROGRESS_INTERVAL_MS = 1_000;

/**
 * While a command runs, tells a client that asked for progress (by sending a progress
 * token) how long it has been running, so long builds keep the call visibly alive.
 */
function reportProgress(context: ToolCallContext): () => void {
  const token = context._meta?.progressToken;
  if (token === undefined) return () => undefined;
  const started = Date.now();
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    context
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: seconds, message: `running for ${seconds}s` },
      })
      .catch(() => undefined);
  }, PROGRESS_INTERVAL_MS);
  return () => clearInterval(timer);
}

/** Registers `shell`: a bash command inside the container, with timeout and capped output. */
export function registerShellTool(registry: ToolRegistry, access: AccessControl, admit: Admit): void {
  registry.register({
    name: "shell",
    description:
      "Run a bash command in the workspace (inside the sandbox). The whole process group is killed on timeout. Output is capped (default 10,000 characters per stream), keeping the beginning and the end around a marker that says how much was cut. For servers and watchers use start_process.",
    inputSchema: {
      command: z.string().min(1).describe("Command line for bash -c"),
      cwd: z.string().optional().describe("Working directory relative to /workspace"),
      timeoutMs: z
        .number()
        .int()
        .min(1)
        .max(MAX_SHELL_TIMEOUT_MS)
        .optional()
        .describe(`Timeout in milliseconds (default ${DEFAULT_SHELL_TIMEOUT_MS})`),
      maxOutputChars: z
        .number()
        .int()
        .min(100)
        .max(MAX_SHELL_OUTPUT_CHARS)
        .optional()
        .describe(`Characters of each stream to return (default ${DEFAULT_SHELL_OUTPUT_CHARS})`),
      heavy: z
        .boolean()
        .optional()
        .describe(
          "A build, test suite or other CPU-heavy command: waits for a host-wide slot so light calls stay fast",
        ),
    },
    outputSchema: { ...CommandOutcomeSchema.shape, oomKilled: z.boolean() },
    annotations: { destructiveHint: true, openWorldHint: false },
    handler: async ({ command, cwd, timeoutMs, maxOutputChars, heavy }, context) => {
      const directory = await access.resolve(cwd ?? ".", "read");
      await access.checkCommand(command);
      const release = heavy ? await admit("shell") : () => undefined;
      const stopProgress = reportProgress(context);
      const oomBefore = readOomKills();
      const run = await runProcess({
        command,
        cwd: directory.absolute,
        timeoutMs: timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS,
        // Bytes are at least characters; keep enough to cut on characters afterwards.
        maxOutputBytes: (maxOutputChars ?? DEFAULT_SHELL_OUTPUT_CHARS) * 4,
        signal: context.signal,
      }).finally(() => {
        stopProgress();
        release();
      });
      const oomAfter = readOomKills();
      const oomKilled =
        oomBefore !== undefined &&
        oomAfter !== undefined &&
        oomAfter > oomBefore &&
        run.signal === "SIGKILL" &&
        !run.timedOut;
      const stdout = capText(run.stdout, maxOutputChars ?? DEFAULT_SHELL_OUTPUT_CHARS);
      const stderr = capText(run.spawnError ?? run.stderr, maxOutputChars ?? DEFAULT_SHELL_OUTPUT_CHARS);
      const structured = {
        exitCode: run.exitCode,
        stdout: stdout.text,
        stderr: stderr.text,
        timedOut: run.timedOut,
        truncated: run.truncated || stdout.truncated || stderr.truncated,
        durationMs: run.durationMs,
        oomKilled,
      };
      const status = run.timedOut
        ? `timed out after ${timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS} ms (process group killed)`
        : oomKilled
          ? "killed: the sandbox's memory limit was exceeded"
          : `exit code ${run.exitCode ?? `signal ${run.signal}`}`;
      const text = [
        `[${status}]`,
        structured.stdout && `stdout:\n${structured.stdout}`,
        structured.stderr && `stderr:\n${structured.stderr}`,
      ]
        .filter(Boolean)
        .join("\n");
      return textResult(text, structured);
    },
  });
}
