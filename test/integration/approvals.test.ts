import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
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
import { startLoopbackServer } from "./helpers/loopback-server.js";
import { createTempDir, createTestRepo } from "./helpers/test-repo.js";

let test: TestPlane;
let repo: string;
const spawned: string[] = [];

beforeAll(async () => {
  test = await startTestPlane();
  repo = await createTestRepo(await createTempDir("workcell-approvals-"));
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

interface Approval {
  id: string;
  workerId: string;
  tool: string;
  input: Record<string, unknown>;
  description: string;
  status: string;
  createdAt: string;
  expiresAt: string;
}

async function spawn(
  body: Record<string, unknown>,
): Promise<{ worker: ApiWorker; client: Client; seenByAgent: string[] }> {
  const worker = await spawnOn(test, repo, body);
  spawned.push(worker.id);
  const { client } = await test.connect(worker.mcpUrl);
  // Record every request the server sends the agent: approvals must never be among them.
  const seenByAgent: string[] = [];
  client.fallbackRequestHandler = async (request) => {
    seenByAgent.push(request.method);
    return {};
  };
  return { worker, client, seenByAgent };
}

async function pending(workerId: string, count = 1): Promise<Approval[]> {
  let list: Approval[] = [];
  await expect
    .poll(
      async () => {
        list = (await test.api<{ approvals: Approval[] }>("GET", `/v1/approvals?status=pending&workerId=${workerId}`))
          .body.approvals;
        return list.length;
      },
      { timeout: 10_000, interval: 100 },
    )
    .toBe(count);
  return list;
}

const decide = (id: string, body: Record<string, unknown>) =>
  test.api<Approval & { error?: { code: string } }>("POST", `/v1/approvals/${id}`, body);

async function stage(client: Client, file: string) {
  await client.callTool({ name: "write_file", arguments: { path: file, content: `${file}\n` } });
  await client.callTool({ name: "git_add", arguments: { files: [file] } });
}

const headSubject = async (client: Client) =>
  textOf(await client.callTool({ name: "git_log", arguments: { maxCount: 1 } }))
    .split("\n")[1]
    ?.trim();

describe("approval gates", () => {
  it("a gated git_commit waits until approved over REST, then commits; deciding again is a conflict", async () => {
    const { worker, client, seenByAgent } = await spawn({ approvals: { tools: ["git_commit"] } });
    await stage(client, "a.txt");
    const call = client.callTool({ name: "git_commit", arguments: { message: "gated commit" } });
    const [approval] = await pending(worker.id);
    expect(approval).toMatchObject({
      tool: "git_commit",
      input: { message: "gated commit" },
      status: "pending",
      description: expect.stringMatching(/git_commit always needs approval/),
    });
    expect(Date.parse(approval?.expiresAt ?? "") - Date.parse(approval?.createdAt ?? "")).toBe(600_000);
    expect((await decide(approval?.id ?? "", { decision: "approve" })).body.status).toBe("approved");
    expect(((await call).structuredContent as { sha: string }).sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await headSubject(client)).toBe("gated commit");
    const again = await decide(approval?.id ?? "", { decision: "reject" });
    expect(again.status).toBe(409);
    expect(seenByAgent).toEqual([]);
  });

  it("a rejected call answers with the reviewer's reason and does nothing; an edited one runs with the reviewer's input", async () => {
    const { worker, client } = await spawn({ approvals: { tools: ["git_commit"] } });
    await stage(client, "b.txt");
    const rejected = client.callTool({ name: "git_commit", arguments: { message: "wip" } });
    await decide((await pending(worker.id))[0]?.id ?? "", { decision: "reject", reason: "write a real message" });
    const answer = await rejected;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toBe("Rejected by reviewer: write a real message");
    expect(await headSubject(client)).toBe("initial");

    const edited = client.callTool({ name: "git_commit", arguments: { message: "wip" } });
    await decide((await pending(worker.id))[0]?.id ?? "", { decision: "edit", input: { message: "Add b.txt" } });
    expect((await edited).isError).toBeFalsy();
    expect(await headSubject(client)).toBe("Add b.txt");
    const invalid = await test.api("POST", `/v1/approvals/ap_000000000000`, { decision: "edit" });
    expect(invalid.status).toBe(400);
  });

  it("applies onTimeout when nobody decides", async () => {
    const { worker, client } = await spawn({ approvals: { tools: ["git_commit"], timeoutMs: 1_500 } });
    await stage(client, "c.txt");
    const answer = await client.callTool({ name: "git_commit", arguments: { message: "late" } });
    expect(textOf(answer)).toMatch(/^Rejected by reviewer: no decision within 1500 ms/);
    const [approval] = (await test.api<{ approvals: Approval[] }>("GET", `/v1/approvals?workerId=${worker.id}`)).body
      .approvals;
    expect(approval?.status).toBe("timed_out");
  });

  it("two pending approvals decided in reverse order each resume their own call", async () => {
    const { worker, client } = await spawn({ approvals: { tools: ["write_file"] } });
    const first = client.callTool({ name: "write_file", arguments: { path: "first.txt", content: "1" } });
    await pending(worker.id, 1);
    const second = client.callTool({ name: "write_file", arguments: { path: "second.txt", content: "2" } });
    const both = await pending(worker.id, 2);
    const byPath = Object.fromEntries(both.map((approval) => [approval.input.path, approval.id]));
    await decide(byPath["second.txt"] ?? "", { decision: "approve" });
    expect(textOf(await second)).toMatch(/second\.txt/);
    await decide(byPath["first.txt"] ?? "", { decision: "reject", reason: "not this one" });
    expect(textOf(await first)).toBe("Rejected by reviewer: not this one");
  });

  it("withdraws the approval of a call whose client went away, so approving it later runs nothing", async () => {
    const worker = await spawnOn(test, repo, { approvals: { tools: ["write_file"] } });
    spawned.push(worker.id);
    const { client, transport } = await test.connect(worker.mcpUrl);
    const call = client
      .callTool({ name: "write_file", arguments: { path: "stale.txt", content: "written after the client left\n" } })
      .catch(() => "gone");
    const [approval] = await pending(worker.id);
    // The client's connection drops without a DELETE or a cancellation (a crashed agent).
    await transport.close();
    expect(await call).toBe("gone");
    await expect
      .poll(async () => (await test.api<Approval>("GET", `/v1/approvals/${approval?.id}`)).body.status, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe("cancelled");
    const late = await decide(approval?.id ?? "", { decision: "approve" });
    expect(late.status).toBe(409);
    const file = await test.api<{ stdout: string }>("POST", `/v1/workers/${worker.id}/exec`, {
      command: "test -e stale.txt && echo exists || echo absent",
    });
    expect(file.body.stdout).toBe("absent\n");
    const events = await test.api<{ events: { type: string; tool?: string; result?: string }[] }>(
      "GET",
      `/v1/workers/${worker.id}/events?type=tool_call`,
    );
    expect(events.body.events.find((event) => event.tool === "write_file")?.result).toBe(
      "Cancelled: the client disconnected before the call was answered",
    );
  });

  it("dangerous git commands need approval by default, and the agent can cancel while waiting", async () => {
    const { worker, client } = await spawn({});
    const controller = new AbortController();
    const call = client.callTool({ name: "shell", arguments: { command: "git reset --hard HEAD" } }, undefined, {
      signal: controller.signal,
    });
    const [approval] = await pending(worker.id);
    expect(approval?.description).toMatch(/git reset --hard discards uncommitted changes/);
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect
      .poll(async () => (await test.api<Approval>("GET", `/v1/approvals/${approval?.id}`)).body.status)
      .toBe("cancelled");
  });

  it("a permission prompt approved for the worker's life is added to the policy and not asked again", async () => {
    const { worker, client } = await spawn({ permissions: { run: ["git", "ls"], prompt: true } });
    const query = await client.callTool({ name: "permissions_query", arguments: { kind: "run", target: "python3" } });
    expect((query.structuredContent as { state: string }).state).toBe("prompt");
    const call = client.callTool({ name: "shell", arguments: { command: "python3 -c 'print(6 * 7)'" } });
    const [approval] = await pending(worker.id);
    expect(approval).toMatchObject({ tool: "shell", input: { kind: "run", target: "python3" } });
    await decide(approval?.id ?? "", { decision: "approve", scope: "worker" });
    expect(((await call).structuredContent as { stdout: string }).stdout).toBe("42\n");
    const policy = await test.api<{ permissions: { run: string[] } }>("GET", `/v1/workers/${worker.id}/permissions`);
    expect(policy.body.permissions.run).toEqual(["git", "ls", "python3"]);
    expect(
      (
        (await client.callTool({ name: "shell", arguments: { command: "python3 -c 'print(1)'" } }))
          .structuredContent as { stdout: string }
      ).stdout,
    ).toBe("1\n");
    expect(
      (await test.api<{ approvals: Approval[] }>("GET", `/v1/approvals?workerId=${worker.id}`)).body.approvals,
    ).toHaveLength(1);
  });

  it("a network destination outside the grants becomes an approval; approved for the worker's life it joins net", async () => {
    const server = await startLoopbackServer("prompted");
    try {
      const { worker } = await spawn({ permissions: { prompt: true } });
      const fetch = () =>
        test.api<{ stdout: string }>("POST", `/v1/workers/${worker.id}/exec`, {
          command: `curl -s http://127.0.0.1:${server.port}/asked`,
        });
      const first = fetch();
      const [approval] = await pending(worker.id);
      expect(approval).toMatchObject({ tool: "net", input: { kind: "net", target: `127.0.0.1:${server.port}` } });
      await decide(approval?.id ?? "", { decision: "approve", scope: "worker" });
      expect((await first).body.stdout).toBe("hello from prompted GET /asked");
      expect((await fetch()).body.stdout).toBe("hello from prompted GET /asked");
      const policy = await test.api<{ permissions: { net: string[] } }>("GET", `/v1/workers/${worker.id}/permissions`);
      expect(policy.body.permissions.net).toEqual([`127.0.0.1:${server.port}`]);
    } finally {
      await server.close();
    }
  });

  it("records every request and decision in the audit trail, in order, with durations", async () => {
    const { worker, client } = await spawn({ approvals: { tools: ["git_commit"] } });
    await stage(client, "d.txt");
    const call = client.callTool({ name: "git_commit", arguments: { message: "audited" } });
    await decide((await pending(worker.id))[0]?.id ?? "", { decision: "approve" });
    await call;
    const { body } = await test.api<{ events: { type: string; seq: number; durationMs?: number; tool?: string }[] }>(
      "GET",
      `/v1/workers/${worker.id}/events?limit=200`,
    );
    const relevant = body.events.filter(
      (event) =>
        ["approval_requested", "approval_decided"].includes(event.type) ||
        (event.type === "tool_call" && event.tool === "git_commit"),
    );
    expect(relevant.map((event) => event.type)).toEqual(["approval_requested", "approval_decided", "tool_call"]);
    expect(relevant[1]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("a pending approval survives a control-plane restart, marked abandoned", async () => {
    const { worker, client } = await spawn({ approvals: { tools: ["git_commit"] } });
    await stage(client, "e.txt");
    const call = client.callTool({ name: "git_commit", arguments: { message: "lost" } }).then(
      () => "answered",
      () => "failed",
    );
    const [approval] = await pending(worker.id);
    await test.plane.close();
    expect(await call).toBe("failed");
    test = await startTestPlane(test.dataDir);
    const after = await test.api<Approval>("GET", `/v1/approvals/${approval?.id}`);
    expect(after.body.status).toBe("abandoned");
    expect((await decide(approval?.id ?? "", { decision: "approve" })).status).toBe(409);
  });
});
