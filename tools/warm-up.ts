import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createToolServer } from "./server.js";

/** A path no workspace has: the warm-up's read finds nothing and touches nothing. */
const ABSENT = ".workcell-warm-up-absent";

/**
 * Takes a throwaway server through `initialize`, `tools/list` and two calls over an
 * in-process pipe, so V8 has compiled the protocol, schema and file-system paths before the
 * session's first message: under gVisor that first pass costs tens of milliseconds. It runs
 * beside the real server and stops between steps once `stop()` says the real session has
 * begun. Nothing it does leaves the process: its audit entries and results go to its own
 * client. Resolves with the steps it took.
 */
export async function warmUp(root: string, stop: () => boolean = () => false): Promise<number> {
  const { server } = createToolServer({ root });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "workcell-warm-up", version: "1" });
  const steps: (() => Promise<unknown>)[] = [
    () => client.connect(clientSide),
    () => client.listTools(),
    () => client.callTool({ name: "read_file", arguments: { path: ABSENT } }),
    () => client.callTool({ name: "ping", arguments: {} }),
  ];
  let taken = 0;
  try {
    await server.connect(serverSide);
    for (const step of steps) {
      if (stop()) break;
      await step();
      taken += 1;
    }
  } finally {
    await client.close();
    await server.close();
  }
  return taken;
}
