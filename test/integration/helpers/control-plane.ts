import { rm } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import Docker from "dockerode";
import { inject } from "vitest";
import { loadConfig, type Config } from "../../../runtime/config/config.js";
import { LABEL_WORKER } from "../../../runtime/docker/container-spec.js";
import { startControlPlane, type ControlPlane, type StartOptions } from "../../../server/control-plane.js";
import { createTempDir, createTestRepo } from "./test-repo.js";

export const TEST_TOKEN = "integration-test-token-0123456789";
export const docker = new Docker();

/** A control plane on a random loopback port with its own data dir, plus helpers. */
export interface TestPlane {
  plane: ControlPlane;
  dataDir: string;
  logs: string[];
  api<T = unknown>(
    method: string,
    route: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T }>;
  /** An MCP SDK client on a worker's URL; `capabilities` are the client's (e.g. elicitation). */
  connect(
    mcpUrl: string,
    capabilities?: ClientCapabilities,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }>;
}

/**
 * Starts a control plane for a test; `dataDir` lets a test restart on the same state;
 * `options` can swap the driver. WORKCELL_RUNTIME in the test process's environment picks
 * the workers' runtime (e.g. `WORKCELL_RUNTIME=runc npm run test:security`);
 * `overrides.runtime` wins over it.
 */
export async function startTestPlane(
  dataDir?: string,
  overrides: Partial<Config> = {},
  options: Omit<StartOptions, "log"> = {},
): Promise<TestPlane> {
  const dir = dataDir ?? (await createTempDir("workcell-data-"));
  const logs: string[] = [];
  const config = loadConfig(
    { WORKCELL_RUNTIME: process.env.WORKCELL_RUNTIME || undefined },
    {
      dataDir: dir,
      port: 0,
      token: TEST_TOKEN,
      image: inject("sandboxImage"),
      sessionIdleMs: 10 * 60_000,
      ...overrides,
    },
  );
  const plane = await startControlPlane(config, { ...options, log: (message) => logs.push(message) });
  return {
    plane,
    dataDir: dir,
    logs,
    async api(method, route, body, headers = {}) {
      const response = await fetch(`${plane.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as never };
    },
    async connect(mcpUrl, capabilities) {
      const client = new Client(
        { name: "workcell-integration", version: "1.0.0" },
        capabilities === undefined ? undefined : { capabilities },
      );
      const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } },
      });
      await client.connect(transport);
      return { client, transport };
    },
  };
}

/** Removes every worker the plane knows, closes it, and deletes its data dir. */
export async function stopTestPlane(test: TestPlane, options: { keepData?: boolean } = {}): Promise<void> {
  const { body } = await test.api<{ workers: { id: string }[] }>("GET", "/v1/workers");
  for (const worker of body.workers ?? []) await test.api("DELETE", `/v1/workers/${worker.id}`);
  await test.plane.close();
  if (!options.keepData) await rm(test.dataDir, { recursive: true, force: true });
}

/** Removes containers of the given worker ids that a failed test may have left. */
export async function removeContainersOf(workerIds: readonly string[]): Promise<void> {
  for (const id of workerIds) {
    const found = await docker.listContainers({ all: true, filters: { label: [`${LABEL_WORKER}=${id}`] } });
    for (const container of found)
      await docker
        .getContainer(container.Id)
        .remove({ force: true })
        .catch(() => undefined);
  }
}

/** A worker as the API answers it. */
export interface ApiWorker {
  id: string;
  name: string;
  status: string;
  repo: string;
  branch: string;
  baseRef: string;
  baseCommit: string;
  workspace: string;
  mcpUrl: string;
  image: string;
  containerId: string;
  /** The OCI runtime the worker runs under (runsc, runc). */
  runtime?: string;
  error?: string;
}

/** Creates a worker on an existing repository. */
export async function spawnOn(test: TestPlane, repo: string, body: Record<string, unknown> = {}): Promise<ApiWorker> {
  const response = await test.api<ApiWorker>("POST", "/v1/workers", { repo, ...body });
  if (response.status !== 201) throw new Error(`spawn failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Creates a repo under `parent` and a worker on it. */
export async function spawnWorker(
  test: TestPlane,
  parent: string,
  body: Record<string, unknown> = {},
): Promise<{ repo: string; worker: ApiWorker }> {
  const repo = await createTestRepo(parent);
  const response = await test.api<ApiWorker>("POST", "/v1/workers", { repo, ...body });
  if (response.status !== 201) throw new Error(`spawn failed: ${response.status} ${JSON.stringify(response.body)}`);
  return { repo, worker: response.body };
}

/** The text of the first content block of a tool result. */
export function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0]?.text ?? "") as string;
}

export { path };
