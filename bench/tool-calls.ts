import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type Docker from "dockerode";
import type { ContainerDriver, ExecSession } from "../runtime/docker/container-driver.js";
import { ExecStdioTransport } from "../runtime/mcp/exec-stdio-transport.js";
import { mcpServerArgv, TOOLS_EXEC } from "../runtime/workers/in-container.js";
import { McpServers, socketsOutsideGvisor } from "../runtime/workers/mcp-servers.js";
import { catalogOf } from "../runtime/docker/runtime-choice.js";
import type { BenchWorker } from "./bench-client.js";
import { dockerExecToEnd, startInProcessFloor } from "./baselines.js";
import { measure, round, summarize, type Summary } from "./stats.js";

/** Where a bridged read_file's p50 goes: the calls straight to the server, and what HTTP and the bridge add. */
export interface Hops {
  /** The in-process floor: the same SDK client, HTTP on loopback, and the tools in this process. */
  inProcessFloor: number;
  /** Straight to the in-container server over its session socket (no HTTP, no bridge). */
  directSocket: number;
  /** The same over `docker exec` stdio, for comparison. */
  directExecStdio: number;
  /** The channel the bridge uses for this worker's sessions. */
  bridgeChannel: "socket" | "stdio";
  /** What HTTP and the bridge add to the call straight over that channel. */
  httpAndBridge: number;
}

/** What one worker's tool calls and their baselines are to be measured with. */
export interface ToolCallSetup {
  readonly worker: BenchWorker;
  /** An MCP client connected to the worker through the control plane's bridge. */
  readonly client: Client;
  readonly repo: string;
  /** The worker's control directory on the host (where its session sockets are made). */
  readonly runDir: string;
  readonly docker: Docker;
  readonly driver: ContainerDriver;
  readonly callReps: number;
  readonly execReps: number;
}

/**
 * Tool-call round trips through the bridge, against the same tools in process (the
 * transport's floor), `docker exec cat`, and the in-container server over exec stdio alone.
 */
export async function measureToolCalls(setup: ToolCallSetup) {
  const { client, worker, callReps } = setup;
  const readFile = () => client.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } });
  const ping = () => client.callTool({ name: "ping", arguments: {} });
  const bridgeRead = summarize(await measure(callReps, readFile, 20));
  const bridgePing = summarize(await measure(callReps, ping, 20));
  const floor = await startInProcessFloor(path.join(setup.repo, "one-kb.txt"));
  const floorRead = summarize(
    await measure(callReps, () => floor.client.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } }), 20),
  );
  const floorPing = summarize(
    await measure(callReps, () => floor.client.callTool({ name: "ping", arguments: {} }), 20),
  );
  await floor.close();
  const container = setup.docker.getContainer(worker.containerId);
  const dockerExecCat: Summary = summarize(
    await measure(setup.execReps, () => dockerExecToEnd(container, ["cat", "/workspace/one-kb.txt"]), 5),
  );
  const stdioRead = await directRead(
    await setup.driver.attach(worker.containerId, mcpServerArgv(), TOOLS_EXEC),
    callReps,
    "bench-stdio",
  );
  const overSocket = await new McpServers(setup.driver).start(
    { containerId: worker.containerId, runDir: setup.runDir, runtime: worker.runtime },
    [],
  );
  const socketRead = await directRead(overSocket, callReps, "bench-socket");
  // The channel the bridge uses for this worker (the control plane's rule: stdio under gVisor).
  const rule = new McpServers(setup.driver, { sockets: socketsOutsideGvisor(catalogOf(await setup.driver.info())) });
  const bridgeChannel = rule.usesSocket(worker.runtime) ? "socket" : "stdio";
  const hopsP50: Hops = {
    inProcessFloor: floorRead.p50,
    directSocket: socketRead.p50,
    directExecStdio: stdioRead.p50,
    bridgeChannel,
    httpAndBridge: round(bridgeRead.p50 - (bridgeChannel === "socket" ? socketRead : stdioRead).p50),
  };
  return {
    bridge: { readFile1KB: bridgeRead, noop: bridgePing },
    inProcessFloor: { readFile1KB: floorRead, noop: floorPing },
    dockerExecCat,
    directStdio: { readFile1KB: stdioRead },
    directSocket: { readFile1KB: socketRead },
    ratioToFloor: { readFile1KB: round(bridgeRead.p50 / floorRead.p50), noop: round(bridgePing.p50 / floorPing.p50) },
    // Where a bridged read_file's median goes, hop by hop (differences of p50s in this run).
    hopsP50,
    timesFasterThanDockerExec: round(dockerExecCat.p50 / bridgeRead.p50),
  };
}

/** read_file round trips straight to an in-container server (no HTTP, no bridge) over `session`. */
async function directRead(session: ExecSession, reps: number, name: string): Promise<Summary> {
  const client = new Client({ name, version: "1" });
  await client.connect(new ExecStdioTransport(session));
  try {
    return summarize(
      await measure(reps, () => client.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } }), 20),
    );
  } finally {
    await client.close();
  }
}
