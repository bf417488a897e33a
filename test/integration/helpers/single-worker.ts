import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  removeContainersOf,
  spawnWorker,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "./control-plane.js";
import { createTempDir } from "./test-repo.js";

/** A control plane with one worker on a fresh test repository, and an MCP client connected to that worker. */
export interface SingleWorker {
  readonly test: TestPlane;
  readonly worker: ApiWorker;
  readonly client: Client;
}

/** Starts a plane and a worker on a test repository in a new temp dir named `tempPrefix…`; if the worker fails, stops the plane. */
export async function startSingleWorker(tempPrefix: string): Promise<SingleWorker> {
  const test = await startTestPlane();
  try {
    const { worker } = await spawnWorker(test, await createTempDir(tempPrefix));
    const { client } = await test.connect(worker.mcpUrl);
    return { test, worker, client };
  } catch (error) {
    await stopTestPlane(test);
    throw error;
  }
}

/** Closes the client, stops the plane (removing its workers) and removes any container the worker left. */
export async function stopSingleWorker(single: SingleWorker | undefined): Promise<void> {
  if (single === undefined) return;
  try {
    await single.client.close();
    await stopTestPlane(single.test);
  } finally {
    await removeContainersOf([single.worker.id]);
  }
}

/** What a command run through the MCP shell tool answered. */
export interface ShellAnswer {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` in the worker the way an agent would, through the MCP shell tool, with a 30 s deadline. */
export async function runShell(client: Client, command: string): Promise<ShellAnswer> {
  const result = await client.callTool({ name: "shell", arguments: { command, timeoutMs: 30_000 } });
  return result.structuredContent as ShellAnswer;
}
