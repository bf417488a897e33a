import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** A worker as POST /v1/workers answers it (the parts the bench uses). */
export interface BenchWorker {
  id: string;
  mcpUrl: string;
  containerId: string;
  runtime?: string;
}

/** An MCP client connected to a worker's endpoint with the plane's token. */
export async function connectMcp(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
