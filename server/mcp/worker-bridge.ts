import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { BridgeSession, type BridgeSessionOptions } from "./bridge-session.js";

const SWEEP_INTERVAL_MS = 30_000;

/** What the bridge is built with: how to reach a worker's server, when sessions expire, and what every session reports to. */
export interface WorkerBridgeOptions extends Omit<BridgeSessionOptions, "onInitialized" | "onClosed"> {
  /** Starts the worker's in-container MCP server and returns a transport to it (throws if it cannot run). */
  openTransport: (workerId: string) => Promise<Transport>;
  /** A session with no message either way for this long is closed. */
  idleMs: number;
}

/** A POST's body as JSON, or the JSON-RPC parse error to answer instead. */
async function readJsonBody(request: Request): Promise<{ body: unknown } | Response> {
  try {
    return { body: await request.json() };
  } catch {
    return jsonRpcError(400, -32700, "Parse error: the body is not valid JSON.");
  }
}

/** A JSON-RPC error answered over plain HTTP (no session to carry it). */
function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * `/v1/workers/:id/mcp`: one in-container MCP server per MCP session, started with a
 * non-TTY `docker exec` when the agent initializes, ended on DELETE, on idle expiry, or
 * when the worker goes down. Unknown sessions answer 404.
 */
export class WorkerBridge {
  private readonly sessions = new Map<string, BridgeSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: WorkerBridgeOptions) {
    this.sweeper = setInterval(() => this.expireIdle(), Math.min(SWEEP_INTERVAL_MS, options.idleMs));
    this.sweeper.unref();
  }

  /** Number of live sessions (for /health and tests). */
  get size(): number {
    return this.sessions.size;
  }

  async handle(workerId: string, request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = this.sessions.get(sessionId);
      if (session === undefined || session.workerId !== workerId) {
        return jsonRpcError(
          404,
          -32001,
          "Session not found: it expired, was closed, or its worker stopped. Initialize a new session.",
        );
      }
      if (request.method !== "POST") return session.handle(request);
      // Parsed here, once (the transport takes it as is), so the session knows which calls this request carries.
      const posted = await readJsonBody(request);
      return posted instanceof Response ? posted : session.handle(request, posted.body);
    }
    if (request.method !== "POST") {
      return jsonRpcError(
        400,
        -32000,
        "Bad Request: Mcp-Session-Id header is required (initialize a session with POST first).",
      );
    }
    const posted = await readJsonBody(request);
    if (posted instanceof Response) return posted;
    const { body } = posted;
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((message) => isInitializeRequest(message))) {
      return jsonRpcError(
        400,
        -32000,
        "Bad Request: no Mcp-Session-Id header and the body is not an initialize request.",
      );
    }
    const container = await this.options.openTransport(workerId);
    const { openTransport: _open, idleMs: _idle, ...sessionOptions } = this.options;
    const session = new BridgeSession(workerId, container, {
      ...sessionOptions,
      onInitialized: (live, id) => this.sessions.set(id, live),
      onClosed: (closed) => this.forget(closed),
    });
    await session.start();
    const response = await session.handle(request, body);
    if (session.http.sessionId === undefined) await session.close();
    return response;
  }

  /** Ends every session (on shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((session) => session.close()));
    this.sessions.clear();
  }

  /** Ends every session of a worker (it is stopping or being removed). */
  async closeWorker(workerId: string): Promise<void> {
    await Promise.all(
      [...this.sessions.values()].filter((session) => session.workerId === workerId).map((session) => session.close()),
    );
  }

  private expireIdle(): void {
    const now = Date.now();
    for (const session of this.sessions.values()) {
      if (session.idleMs(now) > this.options.idleMs) void session.close();
    }
  }

  private forget(session: BridgeSession): void {
    for (const [id, live] of this.sessions) if (live === session) this.sessions.delete(id);
  }
}
