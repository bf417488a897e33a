import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PathRefusedError } from "./fs/resolve-inside.js";
import { PermissionDeniedError } from "./permissions/access-control.js";
import { permissionDeniedMeta } from "../contract/sandbox-error.js";

/** A successful tool answer with text and, optionally, structured content. */
export function textResult(text: string, structured?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text }],
    ...(structured === undefined ? {} : { structuredContent: structured }),
  };
}

/**
 * A tool error the agent can act on: `isError: true`, text starting with `Error:` and
 * saying how to fix it. Structured content, when given, carries the details.
 */
export function errorResult(message: string, structured?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text: message.startsWith("Error:") ? message : `Error: ${message}` }],
    isError: true,
    ...(structured === undefined ? {} : { structuredContent: structured }),
  };
}

/** What a handler may use of the SDK's per-call context. */
export interface ToolCallContext {
  readonly signal: AbortSignal;
  readonly _meta?: { progressToken?: string | number };
  readonly sendNotification: (notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; total?: number; message?: string };
  }) => Promise<void>;
}

/** An expected failure inside a tool (bad edit, missing file); becomes an `isError` result. */
export class ToolInputError extends Error {
  override readonly name = "ToolInputError";
}

/** Turns anything a tool threw into the message the agent sees. */
export function describeToolError(error: unknown): string {
  if (error instanceof PathRefusedError || error instanceof ToolInputError || error instanceof PermissionDeniedError)
    return error.message;
  if (typeof error === "object" && error !== null && "code" in error) {
    const { code, path: target } = error as { code?: string; path?: string };
    const where = target === undefined ? "" : ` (${target})`;
    switch (code) {
      case "ENOENT":
        return `No such file or directory${where}. Check the path with list_directory or glob.`;
      case "EISDIR":
        return `Expected a file but found a directory${where}. Use list_directory to read directories.`;
      case "ENOTDIR":
        return `A parent of the path is a file, not a directory${where}.`;
      case "EEXIST":
        return `The destination already exists${where}.`;
      case "EACCES":
      case "EPERM":
        return `Permission denied${where}.`;
      case "ELOOP":
        return `The path is a symbolic link that cannot be followed safely${where}.`;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The `isError` result for anything a tool threw. A refusal by the policy also says so by
 * code in its `_meta` (the contract's typed error), which the control plane reads instead
 * of the text.
 */
function errorResultFor(error: unknown): CallToolResult {
  const result = errorResult(describeToolError(error));
  return error instanceof PermissionDeniedError
    ? { ...result, _meta: permissionDeniedMeta(error.kind, error.target) }
    : result;
}

/**
 * Wraps a tool handler so every failure becomes an `isError` result instead of a protocol
 * error: the server never crashes on a tool failure.
 */
export function answerErrorsAsToolResults<A>(
  handler: (args: A, extra: ToolCallContext) => Promise<CallToolResult>,
): (args: A, extra: ToolCallContext) => Promise<CallToolResult> {
  return async (args: A, extra: ToolCallContext) => {
    try {
      return await handler(args, extra);
    } catch (error) {
      return errorResultFor(error);
    }
  };
}
