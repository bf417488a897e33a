import type { ErrorBody, ErrorCode } from "../runtime/errors/app-error.js";

/** A non-2xx answer: the control plane's error code and message (which says how to fix it). */
export class WorkcellError extends Error {
  override readonly name = "WorkcellError";
  constructor(
    readonly status: number,
    readonly code: ErrorCode | "network",
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The error for a request that never got an answer: the control plane at `url` is unreachable, and why. */
export function networkError(url: string, error: unknown): WorkcellError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? String(error);
  return new WorkcellError(
    0,
    "network",
    `Cannot reach the control plane at ${url} (${reason}). Is it running ('npm start')?`,
    { reason },
  );
}

/** The error a non-2xx answer carries: its JSON error body, else its status and the start of its text. */
export async function errorFromResponse(response: Response): Promise<WorkcellError> {
  const text = await response.text();
  try {
    const { error } = JSON.parse(text) as ErrorBody;
    return new WorkcellError(response.status, error.code, error.message, error.details);
  } catch {
    return new WorkcellError(response.status, "internal", `HTTP ${response.status}: ${text.slice(0, 200)}`);
  }
}
