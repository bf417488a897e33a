import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

type Message = JSONRPCMessage & { id?: RequestId; method?: string; params?: Record<string, unknown> };

/** Where a message from the container goes on the HTTP side. */
export type Route =
  | { kind: "response" }
  | { kind: "related"; requestId: RequestId }
  | { kind: "standalone" }
  | { kind: "drop"; reason: string };

function isRequest(message: Message): boolean {
  return typeof message.method === "string" && message.id !== undefined;
}

function isResponse(message: Message): boolean {
  return message.method === undefined && message.id !== undefined;
}

/**
 * Remembers the agent's open requests and their progress tokens, so that messages coming
 * back from the container reach the right HTTP stream: responses by id, progress by token,
 * and other server-initiated messages to the stream of the one open request (if exactly
 * one is open) or the session's standalone stream. Pure bookkeeping, no I/O.
 */
export class MessageRouter {
  private readonly pending = new Map<RequestId, { progressToken?: string | number }>();
  private readonly progressTokens = new Map<string | number, RequestId>();
  private readonly cancelled = new Set<RequestId>();

  /** Records a message the agent sent towards the container. */
  fromClient(message: JSONRPCMessage): void {
    const msg = message as Message;
    if (isRequest(msg)) {
      const meta = msg.params?._meta as { progressToken?: unknown } | undefined;
      const token = meta?.progressToken;
      const progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
      this.pending.set(msg.id as RequestId, progressToken === undefined ? {} : { progressToken });
      if (progressToken !== undefined) this.progressTokens.set(progressToken, msg.id as RequestId);
      return;
    }
    if (msg.method === "notifications/cancelled") {
      const requestId = (msg.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined && this.pending.has(requestId)) {
        this.settle(requestId);
        this.cancelled.add(requestId);
      }
    }
  }

  /** Decides where a message from the container goes. */
  toClient(message: JSONRPCMessage): Route {
    const msg = message as Message;
    if (isResponse(msg)) {
      const id = msg.id as RequestId;
      if (this.cancelled.delete(id))
        return { kind: "drop", reason: `request ${String(id)} was cancelled by the client` };
      if (!this.pending.has(id)) return { kind: "drop", reason: `no open request with id ${String(id)}` };
      this.settle(id);
      return { kind: "response" };
    }
    const token = (msg.params as { progressToken?: string | number } | undefined)?.progressToken;
    if (msg.method === "notifications/progress" && token !== undefined) {
      const requestId = this.progressTokens.get(token);
      return requestId === undefined
        ? { kind: "drop", reason: `progress for unknown token ${String(token)}` }
        : { kind: "related", requestId };
    }
    if (this.pending.size === 1) {
      const [only] = this.pending.keys();
      return { kind: "related", requestId: only as RequestId };
    }
    return { kind: "standalone" };
  }

  /** Ids of requests the container has not answered yet. */
  openRequests(): RequestId[] {
    return [...this.pending.keys()];
  }

  private settle(id: RequestId): void {
    const entry = this.pending.get(id);
    if (entry?.progressToken !== undefined) this.progressTokens.delete(entry.progressToken);
    this.pending.delete(id);
  }
}
