import { AppError, toErrorBody, type ErrorBody } from "../runtime/errors/app-error.js";

/**
 * The runtime names what would fix an error (`details.action`) without knowing the routes;
 * this table says how to do it over this API.
 */
const ROUTE_OF_ACTION: Readonly<Record<string, (details: Record<string, unknown>) => string>> = {
  start_worker: (details) => `POST /v1/workers/${typeof details.worker === "string" ? details.worker : ":id"}/start`,
  list_workers: () => "GET /v1/workers",
  list_tasks: () => "GET /v1/tasks",
  list_approvals: () => "GET /v1/approvals?status=pending",
};

/** The error's message with the route that fixes it, when the runtime named an action. */
export function messageWithRoute(error: AppError): string {
  const action = error.details?.action;
  const route = typeof action === "string" ? ROUTE_OF_ACTION[action]?.(error.details ?? {}) : undefined;
  return route === undefined ? error.message : `${error.message} (${route})`;
}

/** The public error body and status of anything thrown, its message naming the route that fixes it. */
export function describeError(error: unknown): { status: number; body: ErrorBody } {
  const described = toErrorBody(error);
  if (error instanceof AppError) described.body.error.message = messageWithRoute(error);
  return described;
}
