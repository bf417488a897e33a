import type { RequestId } from "@modelcontextprotocol/sdk/types.js";

/** Aborts the request a cancellation names if `pending` holds it; false leaves the message to others. */
export function abortPending(
  pending: Map<RequestId, AbortController>,
  params: Record<string, unknown> | undefined,
): boolean {
  const requestId = params?.requestId as RequestId | undefined;
  const controller = requestId === undefined ? undefined : pending.get(requestId);
  if (controller === undefined) return false;
  controller.abort();
  pending.delete(requestId as RequestId);
  return true;
}
