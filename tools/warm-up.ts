import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createToolServer } from "./server.js";

/** A path no workspace has: the warm-up's read finds nothing and touches nothing. */
const ABSENT = ".workcell-warm-up-absent";

/**
 * Where the image keeps a small file for the warm-up to read (Dockerfile.sandbox), so a
 * read's success path is compiled as well as its error path. The warm-up stays out of the
 * workspace: a pool slot's is not readable before its claim, and the agent's files are not
 * the warm-up's business.
 */
export const WARM_UP_ROOT = "/opt/workcell/warm-up";
/** The file in WARM_UP_ROOT. */
export const WARM_UP_SAMPLE = "sample.txt";

/**
 * Takes a throwaway server through `initialize`, `tools/list` and three calls over an
 * in-process pipe, so V8 has compiled the protocol, schema and file-system paths before the
 * session's first message: under gVisor that first pass costs tens of milliseconds. It runs
 * beside the real server and stops between steps once `stop()` says the real session has
 * begun. Nothing it does leaves the process: its audit entries and results go to its own
 * client. Resolves with the steps it took.
 */
export async function warmUp(root: string = WARM_UP_ROOT, stop: () => boolean = () => false): Promise<number> {
  const { server } = createToolServer({ root });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "workcell-warm-up", version: "1" });
  const steps: (() => Promise<unknown>)[] = [
    () => client.connect(clientSide),
    () => client.listTools(),
    () => client.callTool({ name: "read_file", arguments: { path: ABSENT } }),
    () => client.callTool({ name: "ping", arguments: {} }),
    () => client.callTool({ name: "read_file", arguments: { path: WARM_UP_SAMPLE } }),
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
