import { z } from "zod";
import type { AccessControl } from "../permissions/access-control.js";
import type { ToolRegistry } from "../registry.js";
import { textResult } from "../tool-result.js";
import type { ProcessManager } from "./process-manager.js";

const DEFAULT_READ_BYTES = 10_000;
const processId = z.string().min(1).describe('Id from start_process, e.g. "p1"');

/** Registers the background process tools: start, read (by cursor), write, kill, list. */
export function registerProcessTools(registry: ToolRegistry, access: AccessControl, processes: ProcessManager): void {
  registry.register({
    name: "start_process",
    description:
      "Start a long-running command (a dev server, a watcher) in the background, in its own process group. Returns at once with a processId; read its output with read_process_output.",
    inputSchema: {
      command: z.string().min(1).describe("Command line for bash -c"),
      cwd: z.string().optional().describe("Working directory relative to /workspace"),
      waitMs: z
        .number()
        .int()
        .min(0)
        .max(30_000)
        .optional()
        .describe("Wait this long and include the first output (default 300)"),
    },
    annotations: { destructiveHint: true, openWorldHint: false },
    handler: async ({ command, cwd, waitMs }) => {
      const directory = await access.resolve(cwd ?? ".", "read");
      await access.checkCommand(command);
      const started = processes.start(command, directory.absolute);
      await new Promise((resolve) => setTimeout(resolve, waitMs ?? 300));
      const first = processes.read(started.processId, 0, DEFAULT_READ_BYTES);
      const state = first.running ? "running" : `exited with code ${first.exitCode ?? first.signal}`;
      return textResult(
        `Started ${first.processId} (pid ${first.pid}), ${state}. Next cursor: ${first.cursor}.\n${first.output}`,
        first,
      );
    },
  });

  registry.register({
    name: "read_process_output",
    description:
      "Read a background process's combined output from a cursor (0 = the start); answers the next cursor, so repeated calls read only new output.",
    inputSchema: {
      processId,
      cursor: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe("Byte position to read from (the cursor the previous read returned)"),
      maxBytes: z
        .number()
        .int()
        .min(1)
        .max(1_000_000)
        .optional()
        .describe(`Most bytes to return (default ${DEFAULT_READ_BYTES})`),
    },
    annotations: { readOnlyHint: true },
    handler: async ({ processId: id, cursor, maxBytes }) => {
      const result = processes.read(id, cursor ?? 0, maxBytes ?? DEFAULT_READ_BYTES);
      const state = result.running
        ? "running"
        : `exited (code ${result.exitCode ?? "none"}${result.signal ? `, signal ${result.signal}` : ""})`;
      const lost =
        result.dropped > 0
          ? ` ${result.dropped} bytes were dropped before this read (the buffer keeps the last 1 MB).`
          : "";
      return textResult(`[${id} ${state}; next cursor ${result.cursor}.${lost}]\n${result.output}`, result);
    },
  });

  registry.register({
    name: "write_process_input",
    description: "Write to a background process's standard input (add \\n yourself); closeStdin ends its input.",
    inputSchema: {
      processId,
      input: z.string().describe("Text to write"),
      closeStdin: z.boolean().optional().describe("Close stdin after writing"),
    },
    annotations: { destructiveHint: false },
    handler: async ({ processId: id, input, closeStdin }) => {
      processes.write(id, input, closeStdin ?? false);
      return textResult(
        `Wrote ${Buffer.byteLength(input)} bytes to ${id}${closeStdin ? " and closed its input" : ""}.`,
      );
    },
  });

  registry.register({
    name: "kill_process",
    description: "Send a signal (default SIGTERM) to a background process's whole process group.",
    inputSchema: {
      processId,
      signal: z.enum(["SIGTERM", "SIGKILL", "SIGINT", "SIGHUP"]).optional().describe("Signal to send"),
    },
    annotations: { destructiveHint: true },
    handler: async ({ processId: id, signal }) => {
      const info = processes.kill(id, signal ?? "SIGTERM");
      return textResult(`Sent ${signal ?? "SIGTERM"} to ${id}.`, info);
    },
  });

  registry.register({
    name: "list_processes",
    description: "List the background processes this session started, running or finished.",
    inputSchema: {},
    annotations: { readOnlyHint: true },
    handler: async () => {
      const list = processes.list();
      const lines = list.map(
        (p) =>
          `${p.processId} pid=${p.pid} ${p.running ? "running" : `exited(${p.exitCode ?? p.signal})`} ${p.command}`,
      );
      return textResult(lines.length === 0 ? "(no background processes)" : lines.join("\n"), { processes: list });
    },
  });
}
