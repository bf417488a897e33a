import type { Operation } from "./operation.js";

const MCP_NOTE =
  "MCP Streamable HTTP (protocol 2025-06-18): POST JSON-RPC messages, GET opens the server's event stream, DELETE ends the session. Use an MCP client rather than calling it by hand.";

function capitalize(word: string): string {
  return word[0]!.toUpperCase() + word.slice(1);
}

/** The MCP endpoints, a worker's and the orchestrator's, each answering POST, GET and DELETE. */
export const MCP_OPERATIONS: readonly Operation[] = (["post", "get", "delete"] as const).flatMap((method) => [
  {
    method,
    path: "/v1/workers/:id/mcp",
    id: `workerMcp${capitalize(method)}`,
    summary: `The worker's MCP server. ${MCP_NOTE}`,
    tag: "mcp",
    ok: { status: 200, description: "MCP JSON-RPC or an event stream." },
  },
  {
    method,
    path: "/v1/mcp",
    id: `orchestratorMcp${capitalize(method)}`,
    summary: `The orchestrator's MCP server (spawn workers, run pipeline tasks). ${MCP_NOTE}`,
    tag: "mcp",
    ok: { status: 200, description: "MCP JSON-RPC or an event stream." },
  },
]);
