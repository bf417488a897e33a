import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect } from "vitest";
import { PROJECT_ROOT } from "../../../server/control-plane.js";
import { removeContainersOf, startTestPlane, stopTestPlane, TEST_TOKEN, type TestPlane } from "./control-plane.js";
import { createRepoFromFixture, createTempDir, git } from "./test-repo.js";

/** An MCP client on the plane's orchestrator endpoint, /v1/mcp. */
export async function connectOrchestrator(plane: TestPlane): Promise<Client> {
  const orchestrator = new Client({ name: "orchestrator-test", version: "1.0.0" });
  await orchestrator.connect(
    new StreamableHTTPClientTransport(new URL(`${plane.plane.url}/v1/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } },
    }),
  );
  return orchestrator;
}

/** Calls an orchestrator tool; the body is its structured content, else its text (parsed when it is a JSON object). */
export async function callOrchestrator<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; body: T }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text: string }[])[0]?.text ?? "{}";
  return {
    isError: result.isError === true,
    body: (result.structuredContent ?? (text.startsWith("{") ? JSON.parse(text) : { text })) as T,
  };
}

/** A js-greeter repository under `scratch` with the scripted agent committed in .agent/. */
async function createRepoWithAgent(scratch: string): Promise<string> {
  const repo = await createRepoFromFixture(scratch, "js-greeter");
  await mkdir(path.join(repo, ".agent"), { recursive: true });
  await copyFile(
    path.join(PROJECT_ROOT, "examples", "agents", "scripted-agent.mjs"),
    path.join(repo, ".agent", "scripted-agent.mjs"),
  );
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "add the scripted agent");
  return repo;
}

/** Spawns, through the orchestrator, a library worker whose agent is the scripted agent, on a new repository. */
export async function spawnScriptedWorker(
  client: Client,
  scratch: string,
  name: string,
): Promise<{ id: string; repo: string }> {
  const repo = await createRepoWithAgent(scratch);
  const spawned = await callOrchestrator<{ id: string; status: string }>(client, "spawn_worker", {
    name,
    repo,
    template: "library",
    model: "scripted-1",
    agent: { command: ["node", "/workspace/.agent/scripted-agent.mjs"] },
  });
  expect(spawned.isError).toBe(false);
  return { id: spawned.body.id, repo };
}

/** Polls check_worker_status until the worker's agent is no longer busy, and answers that last status. */
export async function waitUntilIdle(client: Client, worker: string): Promise<{ busy: boolean; last_message: string }> {
  let status = { busy: true, last_message: "" };
  await expect
    .poll(
      async () => {
        status = (
          await callOrchestrator<{ busy: boolean; last_message: string }>(client, "check_worker_status", { worker })
        ).body;
        return status.busy;
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe(false);
  return status;
}

/** Drives one step that dispatches to the agent, then waits for it. */
export async function instructAndWait(
  client: Client,
  tool: string,
  taskId: string,
  prompt: string,
  worker: string,
): Promise<void> {
  const answer = await callOrchestrator(client, tool, { task_id: taskId, prompt });
  expect(answer.isError, JSON.stringify(answer.body)).toBe(false);
  await waitUntilIdle(client, worker);
}

/** What the scripted agent is told at each stage: the FILE blocks it writes, or prose it ignores. */
export const PROMPTS = {
  feature:
    'Write the feature.\nFILE features/greet.feature\nFeature: Greeting\n  Scenario: greet someone\n    Given a name "Ada"\n    When I greet them\n    Then I hear "Hello, Ada!"\nEND',
  steps:
    "FILE features/steps/greet.steps.js\n// Step definitions for features/greet.feature\nmodule.exports = { given: (name) => name };\nEND",
  unitTests:
    'FILE test/greet.test.js\nconst test = require("node:test");\nconst assert = require("node:assert/strict");\ntest("greets by name", () => {\n  const { greet } = require("../src/greet.js");\n  assert.equal(greet("Ada"), "Hello, Ada!");\n});\nEND',
  buggyImplementation: "FILE src/greet.js\nexports.greet = (name) => `Hi ${name}`;\nEND",
  implementation: "FILE src/greet.js\nexports.greet = (name) => `Hello, ${name}!`;\nEND",
  refactor: 'FILE src/greet.js\nconst greeting = "Hello";\nexports.greet = (name) => `${greeting}, ${name}!`;\nEND',
  validation: "Check that everything is in place. Nothing to change.",
};

/** A control plane and an orchestrator client shared by one file's tests; `test` and `client` may be replaced (a restart). */
export interface OrchestratorSuite {
  test: TestPlane;
  client: Client;
  call<T = Record<string, unknown>>(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ isError: boolean; body: T }>;
  /** A worker with the scripted agent on a new repository, removed after the file's tests. */
  spawnAgentWorker(name: string): Promise<{ id: string; repo: string }>;
  waitIdle(worker: string): ReturnType<typeof waitUntilIdle>;
  instruct(tool: string, taskId: string, prompt: string, worker: string): ReturnType<typeof instructAndWait>;
}

/** Starts a plane and connects the orchestrator before the file's tests; ends both and removes the spawned workers after. */
export function useOrchestratorSuite(): OrchestratorSuite {
  let scratch = "";
  const spawned: string[] = [];
  const suite = {
    call: <T = Record<string, unknown>>(name: string, args: Record<string, unknown>) =>
      callOrchestrator<T>(suite.client, name, args),
    spawnAgentWorker: async (name: string) => {
      const worker = await spawnScriptedWorker(suite.client, scratch, name);
      spawned.push(worker.id);
      return worker;
    },
    waitIdle: (worker: string) => waitUntilIdle(suite.client, worker),
    instruct: (tool: string, taskId: string, prompt: string, worker: string) =>
      instructAndWait(suite.client, tool, taskId, prompt, worker),
  } as OrchestratorSuite;
  beforeAll(async () => {
    suite.test = await startTestPlane();
    scratch = await createTempDir("workcell-pipeline-");
    suite.client = await connectOrchestrator(suite.test);
  });
  afterAll(async () => {
    await suite.client?.close();
    await stopTestPlane(suite.test);
    await removeContainersOf(spawned);
  });
  return suite;
}
