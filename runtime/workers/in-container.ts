import { z } from "zod";
import type { ContainerDriver } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";

/** Where the bundled tools live inside the sandbox image. */
export const TOOLS_PATH = "/opt/workcell/workcell-tools.mjs";

/** The argv that starts the in-container MCP server on stdio. */
export const MCP_SERVER_ARGV = ["node", TOOLS_PATH, "mcp"] as const;

/** The argv of the container's main process when its traffic goes through the egress proxy. */
export const FORWARDER_ARGV = ["node", TOOLS_PATH, "forward"] as const;

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
  const result = await driver.exec(containerId, {
    argv: ["node", TOOLS_PATH, ...argv],
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
    throw new AppError("internal", `The sandbox's tools program gave no answer (exit code ${result.exitCode}): ${result.stderr.toString("utf8").slice(0, 500).trim()}`);
  }
  const failure = z.object({ error: z.string(), code: z.literal("permission_denied").optional() }).safeParse(value);
  if (failure.success) throw new AppError(failure.data.code ?? "invalid_input", failure.data.error);
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new AppError("internal", `The sandbox answered in an unexpected shape: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
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
export function callWorkerTool(driver: ContainerDriver, containerId: string, tool: string, args: Record<string, unknown>, env: readonly string[] = []): Promise<WorkerToolResult> {
  return callInContainer(driver, containerId, ["call", tool], ToolResultSchema, { stdin: Buffer.from(JSON.stringify(args)), env, timeoutMs: TOOL_CALL_DEADLINE_MS });
}

/** The text of a worker tool result. */
export function toolText(result: WorkerToolResult): string {
  return result.content.filter((block) => block.type === "text").map((block) => block.text ?? "").join("\n");
}
