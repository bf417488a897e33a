import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type Docker from "dockerode";
import type { ContainerDriver } from "../runtime/docker/container-driver.js";
import { ExecStdioTransport } from "../runtime/mcp/exec-stdio-transport.js";
import { mcpServerArgv, TOOLS_EXEC } from "../runtime/workers/in-container.js";
import type { BenchWorker } from "./bench-client.js";
import { dockerExecToEnd, startInProcessFloor } from "./baselines.js";
import { measure, round, summarize, type Summary } from "./stats.js";

/** A bridged read_file's p50, hop by hop. */
export interface Hops {
  toolsInProcess: number;
  execStdioInContainer: number;
  httpAndBridge: number;
}

/** What one worker's tool calls and their baselines are to be measured with. */
export interface ToolCallSetup {
  readonly worker: BenchWorker;
  /** An MCP client connected to the worker through the control plane's bridge. */
  readonly client: Client;
  readonly repo: string;
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
  const session = await setup.driver.attach(worker.containerId, mcpServerArgv(), TOOLS_EXEC);
  const stdioClient = new Client({ name: "bench-stdio", version: "1" });
  await stdioClient.connect(new ExecStdioTransport(session));
  const stdioRead = summarize(
    await measure(callReps, () => stdioClient.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } }), 20),
  );
  await stdioClient.close();
  const hopsP50: Hops = {
    toolsInProcess: floorRead.p50,
    execStdioInContainer: round(stdioRead.p50 - floorRead.p50),
    httpAndBridge: round(bridgeRead.p50 - stdioRead.p50),
  };
  return {
    bridge: { readFile1KB: bridgeRead, noop: bridgePing },
    inProcessFloor: { readFile1KB: floorRead, noop: floorPing },
    dockerExecCat,
    directStdio: { readFile1KB: stdioRead },
    ratioToFloor: { readFile1KB: round(bridgeRead.p50 / floorRead.p50), noop: round(bridgePing.p50 / floorPing.p50) },
    // Where a bridged read_file's median goes, hop by hop (differences of p50s in this run).
    hopsP50,
    timesFasterThanDockerExec: round(dockerExecCat.p50 / bridgeRead.p50),
  };
}
