import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { AppError } from "../../runtime/errors/app-error.js";

/** The structured answer of a tool: the value as pretty JSON text and as structured content. */
export const json = (value: unknown, isError = false): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
  structuredContent: value as Record<string, unknown>,
  ...(isError ? { isError: true } : {}),
});

/** Runs a tool body; whatever it throws comes back as an isError result with its message. */
export const answerErrorsAsToolResults = (body: () => Promise<CallToolResult>) => async (): Promise<CallToolResult> => {
  try {
    return await body();
  } catch (error) {
    const message = error instanceof AppError ? error.message : error instanceof Error ? error.message : String(error);
    return { content: [{ type: "text", text: `Error: ${message}` }], isError: true };
  }
};

/** The argument that names a worker, by id or name. */
export const workerRef = z.string().min(1).max(100).describe("Worker id or name");
