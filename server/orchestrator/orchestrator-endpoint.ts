import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { registerOrchestratorTools, type OrchestratorDeps } from "./orchestrator-tools.js";

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * `/v1/mcp`: the orchestrator's MCP endpoint (Streamable HTTP). Each session gets its own
 * server instance with the worker lifecycle, inspection and pipeline tools.
 */
export class OrchestratorEndpoint {
  private readonly sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  constructor(
    private readonly deps: OrchestratorDeps,
    private readonly maxBodyBytes: number,
  ) {}

  async handle(request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const transport = this.sessions.get(sessionId);
      if (transport === undefined)
        return jsonRpcError(404, -32001, "Session not found: it expired or was closed. Initialize a new session.");
      return transport.handleRequest(request);
    }
    if (request.method !== "POST")
      return jsonRpcError(
        400,
        -32000,
        "Bad Request: Mcp-Session-Id header is required (initialize a session with POST first).",
      );
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return jsonRpcError(400, -32700, "Parse error: the body is not valid JSON.");
    }
    if (!(Array.isArray(body) ? body : [body]).some((message) => isInitializeRequest(message))) {
      return jsonRpcError(
        400,
        -32000,
        "Bad Request: no Mcp-Session-Id header and the body is not an initialize request.",
      );
    }
    const server = new McpServer(
      { name: "workcell-orchestrator", version: "0.1.0" },
      {
        capabilities: { tools: {} },
        instructions:
          "Spawn and manage workcell workers and drive coding tasks through the BDD pipeline (accept_goal first).",
      },
    );
    registerOrchestratorTools(server, this.deps);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => void this.sessions.set(id, transport),
      maxRequestBodySize: this.maxBodyBytes,
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((transport) => transport.close()));
    this.sessions.clear();
  }
}
