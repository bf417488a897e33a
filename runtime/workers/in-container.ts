import { z } from "zod";
import type { ContainerDriver } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";

/** Where the bundled tools live inside the sandbox image. */
export const TOOLS_PATH = "/opt/workcell/workcell-tools.mjs";

/**
 * The sandbox image's execute-only node (mode 0111, root-owned). A process started from it
 * is non-dumpable from the moment of exec, so no other process of the sandbox user can
 * open its /proc/<pid>/fd, read its memory or ptrace it: its stdio, the channel to the
 * control plane, cannot be written by anything but itself.
 */
export const PROTECTED_NODE = "/usr/libexec/workcell-node";

/** The image's execute-only coreutils `timeout`, the parent of a protected program run under a deadline. */
export const PROTECTED_TIMEOUT = "/usr/libexec/workcell-timeout";

/** The readable node, for runtimes that cannot exec a binary the process may not read. */
const PLAIN_NODE = "node";

/** Whether a runtime can exec an execute-only binary (gVisor loads programs itself, so it needs to read them). */
export function runsExecuteOnly(runtime: string | undefined): boolean {
  return runtime === undefined || !/runsc|gvisor/i.test(runtime);
}

/** The argv that starts one mode of the in-container tools program under the given runtime. */
export function toolsArgv(runtime: string | undefined, mode: string, ...args: readonly string[]): string[] {
  return [runsExecuteOnly(runtime) ? PROTECTED_NODE : PLAIN_NODE, TOOLS_PATH, mode, ...args];
}

/** The argv that starts the in-container MCP server on stdio. */
export function mcpServerArgv(runtime: string | undefined): string[] {
  return toolsArgv(runtime, "mcp");
}

/** The argv of the container's main process when its traffic goes through the egress proxy. */
export function forwarderArgv(runtime: string | undefined): string[] {
  return toolsArgv(runtime, "forward");
}

/**
 * Runs a mode of the in-container tools program and validates its one-line JSON answer:
 * the container is untrusted, so its answer crosses a trust boundary.
 */
export async function callInContainer<T>(
  driver: ContainerDriver,
  containerId: string,
  argv: readonly string[],
  schema: z.ZodType<T, unknown>,
  options: { stdin?: Buffer; signal?: AbortSignal; env?: readonly string[]; runtime?: string; timeoutMs?: number } = {},
): Promise<T> {
  const [mode = "", ...args] = argv;
  const result = await driver.exec(containerId, {
    argv: toolsArgv(options.runtime, mode, ...args),
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const line = result.stdout.toString("utf8").trim().split("\n").pop() ?? "";
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // Under gVisor, running out of memory or PIDs ends the whole sandbox, not one process:
    // say that the worker is down (and why) rather than report an internal error.
    const state = await settledState(driver, containerId);
    if (state !== undefined && !state.running) {
      const why = state.oomKilled ? "it ran out of memory (resources.memoryMb)" : `its container exited with code ${state.exitCode}`;
      throw new AppError("conflict", `The worker's sandbox ended during the command: ${why}. The workspace is intact; start the worker again (POST .../start) and retry with less load.`, {
        details: { oomKilled: state.oomKilled, exitCode: state.exitCode },
      });
    }
    throw new AppError("internal", `The sandbox's tools program gave no answer (exit code ${result.exitCode}): ${result.stderr.toString("utf8").slice(0, 500).trim()}`);
  }
  const failure = z.object({ error: z.string(), code: z.literal("permission_denied").optional() }).safeParse(value);
  if (failure.success) throw new AppError(failure.data.code ?? "invalid_input", failure.data.error);
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new AppError("internal", `The sandbox answered in an unexpected shape: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** The container's state once a dying sandbox has had a moment to be reported stopped (up to 2 s). */
async function settledState(driver: ContainerDriver, containerId: string) {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const state = await driver.inspect(containerId).catch(() => undefined);
    if (state === undefined || !state.running || attempt === 19) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

/** A tool result as the worker's tools answer it (validated loosely: it comes from the sandbox). */
export const ToolResultSchema = z
  .object({
    content: z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough()),
    structuredContent: z.record(z.string(), z.unknown()).optional(),
    isError: z.boolean().optional(),
  })
  .passthrough();
export type WorkerToolResult = z.infer<typeof ToolResultSchema>;

/** Deadline of one tool call from the host: tools bound their own commands (at most an hour) well within it. */
export const TOOL_CALL_DEADLINE_MS = 65 * 60_000;

/** Calls one of the worker's own tools inside its container (same confinement and policy as for the agent). */
export function callWorkerTool(
  driver: ContainerDriver,
  containerId: string,
  tool: string,
  args: Record<string, unknown>,
  options: { env?: readonly string[]; runtime?: string } = {},
): Promise<WorkerToolResult> {
  return callInContainer(driver, containerId, ["call", tool], ToolResultSchema, { stdin: Buffer.from(JSON.stringify(args)), ...options, timeoutMs: TOOL_CALL_DEADLINE_MS });
}

/** The text of a worker tool result. */
export function toolText(result: WorkerToolResult): string {
  return result.content.filter((block) => block.type === "text").map((block) => block.text ?? "").join("\n");
}
