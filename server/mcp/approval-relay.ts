import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { APPROVAL_METHOD } from "../../contract/wire.js";
import { abortPending } from "./abort-pending.js";

/** The abort reason when a session ends under a waiting approval (as opposed to the agent cancelling). */
export const SESSION_CLOSED = "session_closed";

/** Decides an approval request from a worker's tools. */
export type ApprovalHandler = (request: {
  workerId: string;
  sessionId: string | undefined;
  params: Record<string, unknown>;
  signal: AbortSignal;
}) => Promise<unknown>;

/**
 * Takes the in-container server's approval requests (and its cancellations of them) off
 * the wire: the control plane answers them; the agent never sees them.
 */
export class ApprovalRelay {
  private readonly waiting = new Map<RequestId, AbortController>();

  constructor(
    private readonly workerId: string,
    private readonly container: Transport,
    private readonly handler: ApprovalHandler | undefined,
    /** The agent's session id, once it has one. */
    private readonly sessionId: () => string | undefined,
  ) {}

  /** True when the message was an approval request or its cancellation, and is handled here. */
  intercept(message: JSONRPCMessage): boolean {
    const msg = message as { id?: RequestId; method?: string; params?: Record<string, unknown> };
    if (msg.method === "notifications/cancelled") return abortPending(this.waiting, msg.params);
    if (msg.method !== APPROVAL_METHOD || msg.id === undefined) return false;
    const id = msg.id;
    const controller = new AbortController();
    this.waiting.set(id, controller);
    const answer =
      this.handler === undefined
        ? Promise.reject(new Error("approvals are not available on this control plane"))
        : this.handler({
            workerId: this.workerId,
            sessionId: this.sessionId(),
            params: msg.params ?? {},
            signal: controller.signal,
          });
    answer
      .then(
        (result) => this.container.send({ jsonrpc: "2.0", id, result: result as Record<string, unknown> }),
        (error: unknown) =>
          this.container.send({
            jsonrpc: "2.0",
            id,
            error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
          }),
      )
      .catch(() => undefined)
      .finally(() => this.waiting.delete(id));
    return true;
  }

  /** Abandons every approval still waiting (with SESSION_CLOSED as the reason). */
  abortAll(): void {
    for (const controller of this.waiting.values()) controller.abort(SESSION_CLOSED);
    this.waiting.clear();
  }
}
