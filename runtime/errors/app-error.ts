import { z } from "zod";

/** Every error code the public API may answer with. */
const ErrorCodeSchema = z.enum([
  "invalid_input",
  "unauthorized",
  "permission_denied",
  "not_found",
  "conflict",
  "payload_too_large",
  "docker_unavailable",
  "timeout",
  "internal",
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** The HTTP status of each error code; the only place this mapping lives. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  invalid_input: 400,
  unauthorized: 401,
  permission_denied: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  docker_unavailable: 503,
  timeout: 504,
  internal: 500,
});

/** The one error type of workcell: a code, a message that says how to fix it, optional details. */
export class AppError extends Error {
  override readonly name = "AppError";
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }

  /** The HTTP status for this error. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** The public error body as a schema (for the API document and the client's types). */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: ErrorCodeSchema,
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** The public error body: `{"error": {"code", "message", "details"?}}`. */
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Converts anything thrown into the public error body and status; unknown errors become `internal`. */
export function toErrorBody(error: unknown): { status: number; body: ErrorBody } {
  const appError =
    error instanceof AppError
      ? error
      : new AppError("internal", "An unexpected error occurred in the control plane. See its log for details.", {
          cause: error,
        });
  const body: ErrorBody = { error: { code: appError.code, message: appError.message } };
  if (appError.details !== undefined) body.error.details = appError.details;
  return { status: appError.status, body };
}
