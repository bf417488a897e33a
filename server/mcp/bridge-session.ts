import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { AdmissionRelay, type AdmissionHandler } from "./admission-relay.js";
import { ApprovalRelay, type ApprovalHandler } from "./approval-relay.js";
import { MessageRouter } from "./message-router.js";
import { judgeServerMessage, type ServerMethodOptions } from "./server-methods.js";
import { ToolCallLog, type ToolCallRecord } from "./tool-call-log.js";

export type { AdmissionHandler } from "./admission-relay.js";
export { SESSION_CLOSED, type ApprovalHandler } from "./approval-relay.js";
export type { ToolCallRecord } from "./tool-call-log.js";

/** JSON-RPC error code for requests the container can no longer answer. */
export const CONTAINER_GONE_CODE = -32603;

/** Why a call is cancelled when its client's connection closed before the answer. */
export const CLIENT_GONE_REASON = "the client disconnected before the call was answered";

/** JSON-RPC code of an answer to a cancelled request (LSP's RequestCancelled). */
const REQUEST_CANCELLED_CODE = -32800;

/** Something the bridge reports but does not die of. */
export type BridgeLog = (message: string) => void;

/** What a session reports to, and what it asks for decisions. */
export interface BridgeSessionOptions {
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
}

/**
 * One MCP session: the agent's Streamable HTTP transport on one side, the in-container
 * server's transport on the other, messages forwarded verbatim both ways. A transport
 * error is logged, not fatal; when the container side ends, every open request is
 * answered with an error and the session closes.
 */
export class BridgeSession {
  readonly http: WebStandardStreamableHTTPServerTransport;
  private readonly router = new MessageRouter();
  private readonly calls: ToolCallLog;
  private readonly approvals: ApprovalRelay;
  private readonly admissions: AdmissionRelay;
  private closed = false;
  private lastActivityMs = Date.now();

  constructor(
    readonly workerId: string,
    private readonly container: Transport,
    private readonly options: BridgeSessionOptions,
  ) {
    const { log } = options;
    const serverMethods = options.serverMethods ?? { elicitation: false, sampling: false };
    const sessionId = () => this.http.sessionId;
    this.calls = new ToolCallLog(workerId, sessionId, options.onToolCall);
    this.approvals = new ApprovalRelay(workerId, container, options.onApprovalRequest, sessionId);
    this.admissions = new AdmissionRelay(workerId, container, options.onAdmissionRequest, () => this.closed);
    this.http = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => options.onInitialized(this, id),
      maxRequestBodySize: options.maxBodyBytes,
    });
    this.http.onmessage = (message) => this.fromClient(message);
    this.http.onerror = (error) => log(`bridge ${workerId}: http transport: ${error.message}`);
    this.http.onclose = () => {
      void this.close();
      options.onClosed(this);
    };
    this.container.onmessage = (message) => {
      this.touch();
      if (this.approvals.intercept(message)) return;
      if (this.admissions.intercept(message)) return;
      if ("result" in message) options.onResponse?.(workerId, message);
      this.calls.finish(message);
      const verdict = judgeServerMessage(message, serverMethods);
      if (!verdict.pass) {
        log(`bridge ${workerId}: ${verdict.reason}`);
        const id = (message as { id?: RequestId }).id;
        if (verdict.answerWith !== undefined && id !== undefined)
          void this.container.send({ jsonrpc: "2.0", id, error: verdict.answerWith }).catch(() => undefined);
        return;
      }
      this.forwardToClient(message);
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

  /** Milliseconds since the last message in either direction. */
  idleMs(now = Date.now()): number {
    return now - this.lastActivityMs;
  }

  /** Ends the session and its in-container process. Safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The calls waiting for these approvals end with the session: their records are abandoned.
    this.approvals.abortAll();
    this.admissions.releaseAll();
    await this.container.close().catch(() => undefined);
    await this.http.close().catch(() => undefined);
  }

  /** Takes one message from the agent (or one the bridge sends in its name) to the container. */
  private fromClient(message: JSONRPCMessage): void {
    this.touch();
    this.options.onActivity?.(this.workerId);
    this.router.fromClient(message);
    this.calls.begin(message);
    this.container
      .send(message)
      .catch((error: unknown) =>
        this.options.log(`bridge ${this.workerId}: could not forward to the container: ${String(error)}`),
      );
    const cancel = message as { method?: string; params?: { requestId?: RequestId; reason?: unknown } };
    if (cancel.method === "notifications/cancelled" && cancel.params?.requestId !== undefined) {
      const requestId = cancel.params.requestId;
      this.http.closeSSEStream(requestId);
      // A cancelled call gets no answer: it ends here, in the audit trail too.
      const reason = typeof cancel.params.reason === "string" ? cancel.params.reason : "the agent cancelled the call";
      this.calls.finish({
        jsonrpc: "2.0",
        id: requestId,
        error: { code: REQUEST_CANCELLED_CODE, message: `Cancelled: ${reason}` },
      });
    }
  }

  private cancelCallsWhenClientLeaves(signal: AbortSignal, body: unknown): void {
    const ids = (Array.isArray(body) ? body : [body])
      .filter(
        (message): message is { id: RequestId } =>
          (message as { method?: unknown })?.method === "tools/call" && (message as { id?: unknown }).id !== undefined,
      )
      .map((message) => message.id);
    if (ids.length === 0) return;
    signal.addEventListener(
      "abort",
      () => {
        for (const id of ids) {
          if (this.closed || !this.calls.isOpen(id)) continue;
          this.fromClient({
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: id, reason: CLIENT_GONE_REASON },
          });
        }
      },
      { once: true },
    );
  }

  private touch(): void {
    this.lastActivityMs = Date.now();
  }

  private forwardToClient(message: JSONRPCMessage): void {
    const route = this.router.toClient(message);
    if (route.kind === "drop") {
      this.options.log(`bridge ${this.workerId}: dropped a message from the container: ${route.reason}`);
      return;
    }
    const options = route.kind === "related" ? { relatedRequestId: route.requestId } : undefined;
    this.http
      .send(message, options)
      .catch((error: unknown) =>
        this.options.log(`bridge ${this.workerId}: could not deliver to the client: ${String(error)}`),
      );
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
      this.calls.finish(error);
      await this.http.send(error).catch(() => undefined);
    }
  }
}
