import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "./control-plane.js";
import { createRepoFromFixture, createTempDir } from "./test-repo.js";

/** A tool call's answer: its text, its structured content (or {}), and whether it failed. */
export interface ToolAnswer {
  text: string;
  data: Record<string, unknown>;
  isError: boolean;
}

/** A worker on a copy of a fixture project, with an MCP client on it. */
export interface FixtureWorker {
  worker: ApiWorker;
  /** The repository the worker was made from (the user's side). */
  repo: string;
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
}

/** A control plane on which tests spawn workers on the projects in test/fixtures/projects/. */
export interface FixturePlane {
  readonly test: TestPlane;
  /** The ids of the workers spawned and the clients opened, for stopFixturePlane to clean up. */
  readonly spawned: readonly string[];
  readonly clients: readonly Client[];
  /** Spawns a worker on a new repository holding a copy of test/fixtures/projects/<fixture>. */
  spawn(fixture: string): Promise<FixtureWorker>;
}

/** Starts a plane for fixture workers; stopFixturePlane closes what it opened. */
export async function startFixturePlane(): Promise<FixturePlane> {
  const test = await startTestPlane();
  const spawned: string[] = [];
  const clients: Client[] = [];
  return {
    test,
    spawned,
    clients,
    async spawn(fixture) {
      const repo = await createRepoFromFixture(await createTempDir("workcell-code-"), fixture);
      const worker = await spawnOn(test, repo);
      spawned.push(worker.id);
      const { client } = await test.connect(worker.mcpUrl);
      clients.push(client);
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const result = await client.callTool({ name, arguments: args });
        return {
          text: textOf(result),
          data: (result.structuredContent ?? {}) as Record<string, unknown>,
          isError: result.isError === true,
        };
      };
      return { worker, repo, client, call };
    },
  };
}

/** Closes the clients, stops the plane (removing its workers) and removes any container they left. */
export async function stopFixturePlane(plane: FixturePlane | undefined): Promise<void> {
  if (plane === undefined) return;
  try {
    for (const client of plane.clients) await client.close();
    await stopTestPlane(plane.test);
  } finally {
    await removeContainersOf(plane.spawned);
  }
}
