import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createToolServer } from "./server.js";

/** A path no workspace has: the warm-up's read finds nothing and touches nothing. */
const ABSENT = ".workcell-warm-up-absent";

/**
 * Takes a throwaway server through `initialize`, `tools/list` and two calls over an
 * in-process pipe, so V8 has compiled the protocol, schema and file-system paths before the
 * session's first message: under gVisor that first pass costs tens of milliseconds. It runs
 * beside the real server (messages that arrive meanwhile are served between its steps), and
 * nothing it does leaves the process: its audit entries and results go to its own client.
 */
export async function warmUp(root: string): Promise<void> {
  const { server } = createToolServer({ root });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "workcell-warm-up", version: "1" });
  try {
    await server.connect(serverSide);
    await client.connect(clientSide);
    await client.listTools();
    await client.callTool({ name: "read_file", arguments: { path: ABSENT } });
    await client.callTool({ name: "ping", arguments: {} });
  } finally {
    await client.close();
    await server.close();
  }
}
