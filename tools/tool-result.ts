import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PathRefusedError } from "./fs/resolve-inside.js";

/** A successful tool answer with text and, optionally, structured content. */
export function textResult(text: string, structured?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text }],
    ...(structured === undefined ? {} : { structuredContent: structured }),
  };
}

/** A tool error the agent can act on: `isError: true` with a message that says how to fix it. */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** What a handler may use of the SDK's per-call context. */
export interface ToolCallContext {
  readonly signal: AbortSignal;
  readonly _meta?: { progressToken?: string | number };
  readonly sendNotification: (notification: { method: "notifications/progress"; params: { progressToken: string | number; progress: number; total?: number; message?: string } }) => Promise<void>;
}

/** An expected failure inside a tool (bad edit, missing file); becomes an `isError` result. */
export class ToolInputError extends Error {
  override readonly name = "ToolInputError";
}

/**
 * Wraps a tool handler so every failure becomes an `isError` result instead of a protocol
 * error: path refusals and input errors keep their message, other errors are described.
 */
export function guarded<A>(
  handler: (args: A, extra: ToolCallContext) => Promise<CallToolResult>,
): (args: A, extra: ToolCallContext) => Promise<CallToolResult> {
  return async (args: A, extra: ToolCallContext) => {
    try {
      return await handler(args, extra);
    } catch (error) {
      if (error instanceof PathRefusedError || error instanceof ToolInputError) return errorResult(error.message);
      return errorResult(describeFsError(error));
    }
  };
}

function describeFsError(error: unknown): string {
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
      case "EACCES":
      case "EPERM":
        return `Permission denied${where}.`;
      case "ELOOP":
        return `The path is a symbolic link that cannot be followed safely${where}.`;
    }
  }
  return error instanceof Error ? error.message : String(error);
}
