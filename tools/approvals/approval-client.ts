import { AsyncLocalStorage } from "node:async_hooks";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolCallContext } from "../tool-result.js";
import { APPROVAL_METHOD } from "../../contract/wire.js";
import { ApprovalAnswerSchema, type ApprovalAnswer, type ApprovalParams } from "../../contract/approval.js";

export { ApprovalAnswerSchema, type ApprovalAnswer } from "../../contract/approval.js";

/** What a gated call asks the reviewer (the tools always say why). */
export type ApprovalRequest = ApprovalParams & { description: string };

/** Asks the control plane for a decision on behalf of the current tool call. */
export type RequestApproval = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

let calls: AsyncLocalStorage<{ tool: string; context: ToolCallContext }> | undefined;

/**
 * The tool call being served, so code deep inside a tool (permission checks) can ask on its
 * behalf. Made on first use: the image's startup snapshot of this program cannot hold one.
 */
export function currentCall(): AsyncLocalStorage<{ tool: string; context: ToolCallContext }> {
  calls ??= new AsyncLocalStorage();
  return calls;
}

const KEEPALIVE_MS = 10_000;
const WAIT_LIMIT_MS = 24 * 60 * 60_000;

/**
 * Sends the approval request to the control plane and waits: progress notifications keep
 * the agent's call alive (when it asked for progress), and the agent cancelling its call
 * withdraws the request.
 */
export function createApprover(server: McpServer): RequestApproval {
  return async (request) => {
    const call = currentCall().getStore();
    const token = call?.context._meta?.progressToken;
    const started = Date.now();
    const keepalive =
      token === undefined
        ? undefined
        : setInterval(() => {
            const seconds = Math.round((Date.now() - started) / 1000);
            call?.context
              .sendNotification({
                method: "notifications/progress",
                params: {
                  progressToken: token,
                  progress: seconds,
                  message: `waiting for a reviewer's approval (${seconds}s)`,
                },
              })
              .catch(() => undefined);
          }, KEEPALIVE_MS);
    try {
      return await server.server.request(
        { method: APPROVAL_METHOD, params: { ...request } } as never,
        ApprovalAnswerSchema,
        {
          timeout: WAIT_LIMIT_MS,
          ...(call === undefined ? {} : { signal: call.context.signal }),
        },
      );
    } finally {
      if (keepalive !== undefined) clearInterval(keepalive);
    }
  };
}
