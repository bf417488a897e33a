import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, createTestRepo } from "./helpers/test-repo.js";

// A worker's first MCP session finds its server already running: it was started with the
// container (cold spawn, or a warm-pool slot), not on `initialize`.

let test: TestPlane;
let repo: string;
const spawned: string[] = [];

beforeAll(async () => {
  test = await startTestPlane(undefined, { poolSize: 1 });
  repo = await createTestRepo(await createTempDir("workcell-standby-"));
  expect(await test.plane.pool?.waitReady(1, 30_000)).toBe(true);
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

/** The pids of the worker's in-container MCP servers, waiting up to 10 s for `count` of them. */
async function mcpServers(worker: ApiWorker, count: number): Promise<string[]> {
  let pids: string[] = [];
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const answer = await test.api<{ stdout: string }>("POST", `/v1/workers/${worker.id}/exec`, {
      command: "pgrep -f 'workcell-tools[.]blob mcp' || true",
    });
    pids = answer.body.stdout.split("\n").filter(Boolean);
    if (pids.length >= count) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return pids;
}

async function firstSessionUsesTheWaitingServer(worker: ApiWorker): Promise<void> {
  const waiting = await mcpServers(worker, 1);
  expect(waiting).toHaveLength(1);
  const { client } = await test.connect(worker.mcpUrl);
  expect(textOf(await client.callTool({ name: "read_file", arguments: { path: "README.md" } }))).toContain("# demo");
  // The session runs on the server that was waiting: no second one was started.
  expect(await mcpServers(worker, 1)).toEqual(waiting);
  // A second session starts its own.
  const { client: second } = await test.connect(worker.mcpUrl);
  expect(await mcpServers(worker, 2)).toHaveLength(2);
  await second.close();
  await client.close();
}

describe("the server waiting for a worker's first session", () => {
  it("is started with a cold worker's container and taken by its first session", async () => {
    // Limits other than the pool's make it a cold start.
    const worker = await spawnOn(test, repo, { resources: { memoryMb: 1536 } });
    spawned.push(worker.id);
    const events = await test.api<{ events: { type: string; pooled?: boolean }[] }>(
      "GET",
      `/v1/workers/${worker.id}/events?type=created`,
    );
    expect(events.body.events[0]?.pooled).toBeUndefined();
    await firstSessionUsesTheWaitingServer(worker);
  });

  it("is started with a warm-pool slot and taken by the first session of the worker that claims it", async () => {
    const worker = await spawnOn(test, repo);
    spawned.push(worker.id);
    const events = await test.api<{ events: { type: string; pooled?: boolean }[] }>(
      "GET",
      `/v1/workers/${worker.id}/events?type=created`,
    );
    expect(events.body.events[0]?.pooled).toBe(true);
    await firstSessionUsesTheWaitingServer(worker);
  });
});
