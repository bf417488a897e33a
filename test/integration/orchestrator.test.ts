import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, createTestRepo, git } from "./helpers/test-repo.js";

// The orchestrator's endpoint alone must be enough to run workers: names that find exactly
// one worker, MCP URLs to hand to agents, diffs and exports without REST.
let test: TestPlane;
let client: Client;
let repo: string;
const spawned: string[] = [];
const auth = { Authorization: `Bearer ${TEST_TOKEN}` };

beforeAll(async () => {
  test = await startTestPlane();
  repo = await createTestRepo(await createTempDir("workcell-orchestrator-"));
  client = new Client({ name: "orchestrator-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${test.plane.url}/v1/mcp`), { requestInit: { headers: auth } }),
  );
});

afterAll(async () => {
  await client?.close();
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

async function call<T = Record<string, unknown>>(
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; text: string; body: T }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text: string }[])[0]?.text ?? "";
  return { isError: result.isError === true, text, body: (result.structuredContent ?? {}) as T };
}

type Summary = { id: string; name: string; mcpUrl: string; status: string };

describe("the orchestrator's workers", () => {
  let first: Summary;

  it("spawn_worker and list_workers answer each worker's MCP URL, and it serves the worker's tools", async () => {
    const created = await call<Summary>("spawn_worker", { name: "orch-a", repo });
    expect(created.isError, created.text).toBe(false);
    first = created.body;
    spawned.push(first.id);
    expect(first.mcpUrl).toBe(`${test.plane.url}/v1/workers/${first.id}/mcp`);
    const listed = await call<{ workers: Summary[] }>("list_workers", {});
    expect(listed.body.workers.find((worker) => worker.id === first.id)?.mcpUrl).toBe(first.mcpUrl);
    const agent = new Client({ name: "agent", version: "1.0.0" });
    await agent.connect(new StreamableHTTPClientTransport(new URL(first.mcpUrl), { requestInit: { headers: auth } }));
    expect((await agent.listTools()).tools.map((tool) => tool.name)).toContain("read_file");
    await agent.close();
  });

  it("refuses a name another worker has, through MCP and REST, so remove_worker by name can only mean one worker", async () => {
    const again = await call("spawn_worker", { name: "orch-a", repo });
    expect(again.isError).toBe(true);
    expect(again.text).toBe(
      `Error: name: a worker named "orch-a" exists already (${first.id}). Choose another name, or remove that worker first.`,
    );
    const rest = await test.api<{ error: { code: string; details: Record<string, unknown> } }>("POST", "/v1/workers", {
      repo,
      name: "orch-a",
    });
    expect(rest.status).toBe(409);
    expect(rest.body.error.details).toMatchObject({ field: "name", worker: first.id });
    const named = (await call<{ workers: Summary[] }>("list_workers", {})).body.workers.filter(
      (worker) => worker.name === "orch-a",
    );
    expect(named.map((worker) => worker.id)).toEqual([first.id]);
  });

  it("diff_worker and export_worker cover what REST's diff and export do", async () => {
    await test.api("POST", `/v1/workers/${first.id}/exec`, {
      command:
        "echo 'export const x = 2;' > src/new.ts && git add src/new.ts && git commit -qm 'add x' && echo draft >> README.md",
    });
    const diff = await call<{ files: { path: string; status: string }[]; patch: string; truncated: boolean }>(
      "diff_worker",
      { worker: "orch-a" },
    );
    expect(diff.isError, diff.text).toBe(false);
    expect(diff.body.files.map((file) => `${file.status} ${file.path}`).sort()).toEqual([
      "added src/new.ts",
      "modified README.md",
    ]);
    expect(diff.body.patch).toContain("+export const x = 2;");
    expect(diff.body.truncated).toBe(false);

    const exported = await call<{ branch: string; commit: string; uncommittedFiles: number }>("export_worker", {
      worker: "orch-a",
      branch: "orch/exported",
    });
    expect(exported.isError, exported.text).toBe(false);
    expect(exported.body).toMatchObject({ branch: "orch/exported", uncommittedFiles: 1 });
    expect(git(repo, "rev-parse", "orch/exported")).toBe(exported.body.commit);
    expect(git(repo, "show", "orch/exported:src/new.ts")).toBe("export const x = 2;");
    const refused = await call("export_worker", { worker: "orch-a", branch: "main" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^Error: Branch main is checked out in /);
  });

  it("refuses accept_goal at once on a worker without an agent, and starts no task", async () => {
    const tasksBefore = (await test.api<{ tasks: unknown[] }>("GET", "/v1/tasks")).body.tasks.length;
    const refused = await call("accept_goal", { goal: "Do something", type: "change", worker: "orch-a" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(
      /^Error: Worker orch-a \([0-9a-f]{8}\) has no agent, so nothing would carry out the task's prompts/,
    );
    expect((await test.api<{ tasks: unknown[] }>("GET", "/v1/tasks")).body.tasks.length).toBe(tasksBefore);
  });

  it("accept_goal on a worker whose task ended starts a new task there", async () => {
    const created = await call<Summary>("spawn_worker", { name: "orch-tasks", repo, agent: { command: ["true"] } });
    expect(created.isError, created.text).toBe(false);
    spawned.push(created.body.id);
    const agent = new Client({ name: "agent", version: "1.0.0" });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(created.body.mcpUrl), { requestInit: { headers: auth } }),
    );
    expect((await agent.callTool({ name: "code_validate", arguments: { language: "python" } })).isError).toBeFalsy();
    expect((await agent.callTool({ name: "finish", arguments: { summary: "first task" } })).isError).toBeFalsy();
    await expect
      .poll(
        async () =>
          (await test.api<{ task?: { status: string } | null }>("GET", `/v1/workers/${created.body.id}`)).body.task
            ?.status,
      )
      .toBe("finished");
    const accepted = await call<{ task_id: string }>("accept_goal", {
      goal: "A second task",
      type: "change",
      worker: "orch-tasks",
    });
    expect(accepted.isError, accepted.text).toBe(false);
    const after = await test.api<{ task: unknown; status: string }>("GET", `/v1/workers/${created.body.id}`);
    expect(after.body).toMatchObject({ task: null, status: "running" });
    await agent.close().catch(() => undefined);
  });

  it("remove_worker by name removes that worker, after which the name is free again", async () => {
    const removed = await call<{ id: string; status: string }>("remove_worker", { worker: "orch-a" });
    expect(removed.body).toEqual({ id: first.id, status: "removed" });
    const reused = await call<Summary>("spawn_worker", { name: "orch-a", repo });
    expect(reused.isError, reused.text).toBe(false);
    spawned.push(reused.body.id);
    expect(reused.body.id).not.toBe(first.id);
  });
});
