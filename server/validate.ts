import type { Context } from "hono";
import type { z } from "zod";
import { AppError } from "../runtime/errors/app-error.js";

/** Worker ids: 8 hex characters. */
export const WORKER_ID = /^[0-9a-f]{8}$/;

/** Parses a request's query with `schema`; a bad one is a 400 naming the field (and `hint`, the fix). */
export function parseQuery<T>(query: Record<string, string>, schema: z.ZodType<T>, hint = ""): T {
  const parsed = schema.safeParse(query);
  if (!parsed.success)
    throw new AppError("invalid_input", `Invalid query: ${describeIssues(parsed.error)}.${hint ? ` ${hint}` : ""}`);
  return parsed.data;
}

/** Describes zod issues as "field: problem" so a message names what to fix. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const field = issue.path.length === 0 ? "body" : issue.path.join(".");
      return `${field}: ${issue.message}`;
    })
    .join("; ");
}

/** Parses a JSON request body with `schema`; a missing, malformed or invalid body is a 400 naming the field. */
export async function parseJsonBody<T>(
  c: Context,
  schema: z.ZodType<T>,
  options: { optional?: boolean } = {},
): Promise<T> {
  const text = await c.req.text();
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch {
      throw new AppError(
        "invalid_input",
        "The request body is not valid JSON. Send a JSON object with Content-Type: application/json.",
      );
    }
  } else if (!options.optional) {
    throw new AppError("invalid_input", "The request body is empty; expected a JSON object.");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => issue.path.join(".") || "body");
    throw new AppError("invalid_input", `Invalid request body: ${describeIssues(parsed.error)}.`, {
      details: { fields },
    });
  }
  return parsed.data;
}
