import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { MessageRouter } from "./message-router.js";
import { judgeServerMessage, type ServerMethodOptions } from "./server-methods.js";
import { ADMISSION_METHOD, ADMISSION_POSITION, ADMISSION_RELEASE, APPROVAL_METHOD } from "../../contract/wire.js";

/** JSON-RPC error code for requests the container can no longer answer. */
export const CONTAINER_GONE_CODE = -32603;

/** A finished tool call as the bridge saw it. */
export interface ToolCallRecord {
  workerId: string;
  sessionId: string | undefined;
  tool: string;
  args: unknown;
  result: string;
  isError: boolean;
  durationMs: number;
}

/** The abort reason when a session ends under a waiting approval (as opposed to the agent cancelling). */
export const SESSION_CLOSED = "session_closed";

/** Why a call is cancelled when its client's connection closed before the answer. */
export const CLIENT_GONE_REASON = "the client disconnected before the call was answered";

/** JSON-RPC code of an answer to a cancelled request (LSP's RequestCancelled). */
const REQUEST_CANCELLED_CODE = -32800;

/** Waits for a host-wide slot for heavy work; resolves with the function that gives it back. */
export type AdmissionHandler = (request: { workerId: string; tool: string; signal: AbortSignal; onPosition: (position: number) => void }) => Promise<() => void>;

/** Decides an approval request from a worker's tools. */
export type ApprovalHandler = (request: { workerId: string; sessionId: string | undefined; params: Record<string, unknown>; signal: AbortSignal }) => Promise<unknown>;

/** Something the bridge reports but does not die of. */
export type BridgeLog = (message: string) => void;

/**
 * One MCP session: the agent's Streamable HTTP transport on one side, the in-container
 * server's transport on the other, messages forwarded verbatim both ways. A transport
 * error is logged, not fatal; when the container side ends, every open request is
 * answered with an error and the session closes.
 */
export class BridgeSession {
  readonly http: WebStandardStreamableHTTPServerTransport;
  private readonly router = new MessageRouter();
  private readonly calls = new Map<RequestId, { tool: string; args: unknown; started: number }>();
  private readonly approvals = new Map<RequestId, AbortController>();
  /** Slots this session holds (by ticket) and admissions it is waiting for. */
  private readonly tickets = new Map<string, () => void>();
  private readonly admissions = new Map<RequestId, AbortController>();
  private toolCallListener: ((call: ToolCallRecord) => void) | undefined;
  private closed = false;
  /** Takes one message from the agent (or one the bridge sends in its name) to the container. */
  private readonly fromClient: (message: JSONRPCMessage) => void;
  private lastActivityMs = Date.now();

  constructor(
    readonly workerId: string,
    private readonly container: Transport,
    options: {
      onInitialized: (session: BridgeSession, sessionId: string) => void;
      onClosed: (session: BridgeSession) => void;
      log: BridgeLog;
      maxBodyBytes: number;
      /** Sees every response from the container (for state its tools report in `_meta`). */
      onResponse?: (workerId: string, message: JSONRPCMessage) => void;
      /** Sees every message from the agent (for idle timeouts). */
      onActivity?: (workerId: string) => void;
      /** Sees every finished tool call (for the audit trail and the log). */
      onToolCall?: (call: ToolCallRecord) => void;
      /** Answers the in-container server's approval requests; they never reach the agent. */
      onApprovalRequest?: ApprovalHandler;
      /** Grants host-wide slots for heavy work; the requests never reach the agent. */
      onAdmissionRequest?: AdmissionHandler;
      /** Server-to-client methods the operator enabled beyond the always-safe ones (default: none). */
      serverMethods?: ServerMethodOptions;
    },
  ) {
    const { log } = options;
    const serverMethods = options.serverMethods ?? { elicitation: false, sampling: false };
    this.toolCallListener = options.onToolCall;
    this.http = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sessionId) => options.onInitialized(this, sessionId),
      maxRequestBodySize: options.maxBodyBytes,
    });
    this.fromClient = (message) => {
      this.touch();
      options.onActivity?.(workerId);
      this.router.fromClient(message);
      const call = message as { id?: RequestId; method?: string; params?: { name?: unknown; arguments?: unknown } };
      if (call.method === "tools/call" && call.id !== undefined) {
        this.calls.set(call.id, { tool: String(call.params?.name ?? ""), args: call.params?.arguments, started: performance.now() });
      }
      this.container.send(message).catch((error: unknown) => log(`bridge ${workerId}: could not forward to the container: ${String(error)}`));
      const cancel = message as { method?: string; params?: { requestId?: RequestId; reason?: unknown } };
      if (cancel.method === "notifications/cancelled" && cancel.params?.requestId !== undefined) {
        const requestId = cancel.params.requestId;
        this.http.closeSSEStream(requestId);
        // A cancelled call gets no answer: it ends here, in the audit trail too.
        const reason = typeof cancel.params.reason === "string" ? cancel.params.reason : "the agent cancelled the call";
        this.finishCall({ jsonrpc: "2.0", id: requestId, error: { code: REQUEST_CANCELLED_CODE, message: `Cancelled: ${reason}` } }, this.toolCallListener);
      }
    };
    this.http.onmessage = (message) => this.fromClient(message);
    this.http.onerror = (error) => log(`bridge ${workerId}: http transport: ${error.message}`);
    this.http.onclose = () => {
      void this.close();
      options.onClosed(this);
    };
    this.container.onmessage = (message) => {
      this.touch();
      if (this.interceptApproval(message, options.onApprovalRequest)) return;
      if (this.interceptAdmission(message, options.onAdmissionRequest)) return;
      if ("result" in message) options.onResponse?.(workerId, message);
      this.finishCall(message, options.onToolCall);
      const verdict = judgeServerMessage(message, serverMethods);
      if (!verdict.pass) {
        log(`bridge ${workerId}: ${verdict.reason}`);
        const id = (message as { id?: RequestId }).id;
        if (verdict.answerWith !== undefined && id !== undefined) void this.container.send({ jsonrpc: "2.0", id, error: verdict.answerWith }).catch(() => undefined);
        return;
      }
      this.forwardToClient(message, log);
    };
    this.container.onerror = (error) => log(`bridge ${workerId}: container transport: ${error.message}`);
    this.container.onclose = () => {
      void this.failOpenRequests().finally(() => this.http.close());
    };
  }

  /** Starts the container side; the HTTP side starts with its first request. */
  async start(): Promise<void> {
    await this.container.start();
  }

  /**
   * Handles one HTTP request of this session. When the client goes away before a tool call
   * it sent in this request is answered, the call is cancelled as if the client had said
   * so: nothing it waits for (an approval, above all) may go on without anyone to answer.
   */
  handle(request: Request, parsedBody?: unknown): Promise<Response> {
    this.touch();
    if (parsedBody !== undefined) this.cancelCallsWhenClientLeaves(request.signal, parsedBody);
    return this.http.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
  }

  private cancelCallsWhenClientLeaves(signal: AbortSignal, body: unknown): void {
    const ids = (Array.isArray(body) ? body : [body])
      .filter((message): message is { id: RequestId } => (message as { method?: unknown })?.method === "tools/call" && (message as { id?: unknown }).id !== undefined)
      .map((message) => message.id);
    if (ids.length === 0) return;
    signal.addEventListener(
      "abort",
      () => {
        for (const id of ids) {
          if (this.closed || !this.calls.has(id)) continue;
          this.fromClient({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: CLIENT_GONE_REASON } });
        }
      },
      { once: true },
    );
  }

  /** Milliseconds since the last message in either direction. */
  idleMs(now = Date.now()): number {
    return now - this.lastActivityMs;
  }

  /** Ends the session and its in-container process. Safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The calls waiting for these approvals end with the session: their records are abandoned.
    for (const controller of this.approvals.values()) controller.abort(SESSION_CLOSED);
    this.approvals.clear();
    for (const controller of this.admissions.values()) controller.abort();
    this.admissions.clear();
    for (const release of this.tickets.values()) release();
    this.tickets.clear();
    await this.container.close().catch(() => undefined);
    await this.http.close().catch(() => undefined);
  }

  private touch(): void {
    this.lastActivityMs = Date.now();
  }

  private forwardToClient(message: JSONRPCMessage, log: BridgeLog): void {
    const route = this.router.toClient(message);
    if (route.kind === "drop") {
      log(`bridge ${this.workerId}: dropped a message from the container: ${route.reason}`);
      return;
    }
    const options = route.kind === "related" ? { relatedRequestId: route.requestId } : undefined;
    this.http.send(message, options).catch((error: unknown) => log(`bridge ${this.workerId}: could not deliver to the client: ${String(error)}`));
  }

  private async failOpenRequests(): Promise<void> {
    for (const id of this.router.openRequests()) {
      const error: JSONRPCMessage = {
        jsonrpc: "2.0",
        id,
        error: {
          code: CONTAINER_GONE_CODE,
          message: `The worker's sandbox ended before answering (its container stopped or crashed). Check GET /v1/workers/${this.workerId}, start it again, and open a new MCP session.`,
        },
      };
      this.finishCall(error, this.toolCallListener);
      await this.http.send(error).catch(() => undefined);
    }
  }

  /**
   * Takes the in-container server's approval requests (and its cancellations of them) off
   * the wire: the control plane answers them; the agent never sees them.
   */
  private interceptApproval(message: JSONRPCMessage, handler: ApprovalHandler | undefined): boolean {
    const msg = message as { id?: RequestId; method?: string; params?: Record<string, unknown> };
    if (msg.method === "notifications/cancelled") return abortPending(this.approvals, msg.params);
    if (msg.method !== APPROVAL_METHOD || msg.id === undefined) return false;
    const id = msg.id;
    const controller = new AbortController();
    this.approvals.set(id, controller);
    const answer =
      handler === undefined
        ? Promise.reject(new Error("approvals are not available on this control plane"))
        : handler({ workerId: this.workerId, sessionId: this.http.sessionId, params: msg.params ?? {}, signal: controller.signal });
    answer.then(
      (result) => this.container.send({ jsonrpc: "2.0", id, result: result as Record<string, unknown> }),
      (error: unknown) => this.container.send({ jsonrpc: "2.0", id, error: { code: -32603, message: error instanceof Error ? error.message : String(error) } }),
    )
      .catch(() => undefined)
      .finally(() => this.approvals.delete(id));
    return true;
  }

  /** Takes admission requests, releases and their cancellations off the wire and serves them from the host queue. */
  private interceptAdmission(message: JSONRPCMessage, handler: AdmissionHandler | undefined): boolean {
    const msg = message as { id?: RequestId; method?: string; params?: Record<string, unknown> };
    if (msg.method === ADMISSION_RELEASE) {
      const ticket = String(msg.params?.ticket ?? "");
      this.tickets.get(ticket)?.();
      this.tickets.delete(ticket);
      return true;
    }
    if (msg.method === "notifications/cancelled") return abortPending(this.admissions, msg.params);
    if (msg.method !== ADMISSION_METHOD || msg.id === undefined) return false;
    const id = msg.id;
    const key = String(msg.params?.key ?? "");
    if (handler === undefined) {
      void this.container.send({ jsonrpc: "2.0", id, result: { ticket: "unmetered" } }).catch(() => undefined);
      return true;
    }
    const controller = new AbortController();
    this.admissions.set(id, controller);
    handler({
      workerId: this.workerId,
      tool: String(msg.params?.tool ?? ""),
      signal: controller.signal,
      onPosition: (position) => void this.container.send({ jsonrpc: "2.0", method: ADMISSION_POSITION, params: { key, position } }).catch(() => undefined),
    }).then(
      (release) => {
        this.admissions.delete(id);
        if (this.closed) return release();
        const ticket = crypto.randomUUID();
        this.tickets.set(ticket, release);
        void this.container.send({ jsonrpc: "2.0", id, result: { ticket } }).catch(() => undefined);
      },
      (error: unknown) => {
        this.admissions.delete(id);
        void this.container.send({ jsonrpc: "2.0", id, error: { code: -32603, message: error instanceof Error ? error.message : String(error) } }).catch(() => undefined);
      },
    );
    return true;
  }

  /** Reports a finished tools/call (answer or error) once. */
  private finishCall(message: JSONRPCMessage, listener: ((call: ToolCallRecord) => void) | undefined): void {
    const id = (message as { id?: RequestId }).id;
    if (id === undefined || !("result" in message || "error" in message)) return;
    const call = this.calls.get(id);
    if (call === undefined) return;
    this.calls.delete(id);
    const result = "result" in message ? (message.result as { content?: { type: string; text?: string }[]; isError?: boolean }) : undefined;
    const text = result?.content?.filter((block) => block.type === "text").map((block) => block.text ?? "").join("\n") ?? ("error" in message ? message.error.message : "");
    listener?.({
      workerId: this.workerId,
      sessionId: this.http.sessionId,
      tool: call.tool,
      args: call.args,
      result: text,
      isError: result?.isError === true || "error" in message,
      durationMs: Math.round(performance.now() - call.started),
    });
  }
}

/** Aborts the request a cancellation names if `pending` holds it; false leaves the message to others. */
function abortPending(pending: Map<RequestId, AbortController>, params: Record<string, unknown> | undefined): boolean {
  const requestId = params?.requestId as RequestId | undefined;
  const controller = requestId === undefined ? undefined : pending.get(requestId);
  if (controller === undefined) return false;
  controller.abort();
  pending.delete(requestId as RequestId);
  return true;
}
