import { z } from "zod";
import type { ContainerDriver } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";
import { SANDBOX_USER_HELPER } from "../../contract/container.js";
import { ControlFailureSchema } from "../../contract/sandbox-error.js";

/** Where the bundled tools live inside the sandbox image (run as a script: `node TOOLS_PATH mode`). */
export const TOOLS_PATH = "/opt/workcell/workcell-tools.cjs";

/** The image's startup snapshot of the tools (see Dockerfile.sandbox): the same program, started faster. */
export const TOOLS_SNAPSHOT = "/opt/workcell/workcell-tools.blob";

/**
 * How workcell's own in-container programs are exec'd: as the container's root, which holds
 * only CAP_SETUID, CAP_SETGID and CAP_SETPCAP, from `/` (the workspace may be closed to root). The
 * program then switches its effective ids to the sandbox user and keeps the real uid 0, so
 * no process of the sandbox user can write its stdio (the channel to the control plane),
 * read its memory, ptrace or signal it, under runc and gVisor alike.
 */
export const TOOLS_EXEC = { user: "0:0", workingDir: "/" } as const;

/** The argv that starts one mode of the in-container tools program (exec'd with TOOLS_EXEC). */
export function toolsArgv(mode: string, ...args: readonly string[]): string[] {
  return ["node", "--snapshot-blob", TOOLS_SNAPSHOT, mode, ...args];
}

/** The argv that starts the in-container MCP server (on stdio; `--socket <name>` for a session socket). */
export function mcpServerArgv(...args: readonly string[]): string[] {
  return toolsArgv("mcp", ...args);
}

/** The argv of the container's main process when its traffic goes through the egress proxy. */
export function forwarderArgv(): string[] {
  return toolsArgv("forward");
}

/** The argv that runs `argv` as the sandbox user, from a process of the container's root. */
export function asSandboxUser(user: { uid: number; gid: number }, argv: readonly string[]): string[] {
  return [SANDBOX_USER_HELPER, String(user.uid), String(user.gid), ...argv];
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
  options: { stdin?: Buffer; signal?: AbortSignal; env?: readonly string[]; timeoutMs?: number } = {},
): Promise<T> {
  const [mode = "", ...args] = argv;
  const result = await driver.exec(containerId, {
    ...TOOLS_EXEC,
    argv: toolsArgv(mode, ...args),
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
    return noAnswer(
      driver,
      containerId,
      `exit code ${result.exitCode}: ${result.stderr.toString("utf8").slice(0, 500).trim()}`,
    );
  }
  return interpretAnswer(value, schema);
}

/**
 * What an answer of the tools program means: its `{error}` becomes an AppError, anything
 * else must fit `schema` (the container is untrusted, so its answer crosses a trust boundary).
 */
export function interpretAnswer<T>(value: unknown, schema: z.ZodType<T, unknown>): T {
  const failure = ControlFailureSchema.safeParse(value);
  if (failure.success) throw new AppError(failure.data.code ?? "invalid_input", failure.data.error);
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new AppError("internal", `The sandbox answered in an unexpected shape: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/**
 * Throws why the tools program gave no answer. Under gVisor, running out of memory or PIDs
 * ends the whole sandbox, not one process: say that the worker is down (and why) rather than
 * report an internal error.
 */
export async function noAnswer(driver: ContainerDriver, containerId: string, detail: string): Promise<never> {
  const state = await settledState(driver, containerId);
  if (state !== undefined && !state.running) {
    const why = state.oomKilled
      ? "it ran out of memory (resources.memoryMb)"
      : `its container exited with code ${state.exitCode}`;
    throw new AppError(
      "conflict",
      `The worker's sandbox ended during the command: ${why}. The workspace is intact; start the worker again (POST .../start) and retry with less load.`,
      {
        details: { oomKilled: state.oomKilled, exitCode: state.exitCode },
      },
    );
  }
  throw new AppError("internal", `The sandbox's tools program gave no answer (${detail})`);
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
  options: { env?: readonly string[] } = {},
): Promise<WorkerToolResult> {
  return callInContainer(driver, containerId, ["call", tool], ToolResultSchema, {
    stdin: Buffer.from(JSON.stringify(args)),
    ...options,
    timeoutMs: TOOL_CALL_DEADLINE_MS,
  });
}

/** The text of a worker tool result. */
export function toolText(result: WorkerToolResult): string {
  return result.content
    .filter((block) => block.type === "text")
    .map((block) => block.text ?? "")
    .join("\n");
}
