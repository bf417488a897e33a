import { access } from "node:fs/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The package's published entry (dist/client.js, built by `npm run build:client`), not the source.
import { WorkcellClient, WorkcellError, type WorkcellEvent, type WorkerInfo } from "workcell/client";
import {
  removeContainersOf,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, createTestRepo, git } from "./helpers/test-repo.js";

let test: TestPlane;
let workcell: WorkcellClient;
let repo: string;
let worker: WorkerInfo;
const spawned: string[] = [];

beforeAll(async () => {
  test = await startTestPlane();
  repo = await createTestRepo(await createTempDir("workcell-client-"));
  workcell = new WorkcellClient({ url: test.plane.url, token: TEST_TOKEN });
  worker = await workcell.spawn({ repo });
  spawned.push(worker.id);
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

describe("WorkcellClient against a real control plane", () => {
  it("spawns a worker whose MCP URL an MCP client reaches with the client's headers", async () => {
    expect(worker).toMatchObject({ status: "running", repo, network: "none" });
    expect(worker.mcpUrl).toBe(`${test.plane.url}/v1/workers/${worker.id}/mcp`);
    const mcp = new Client({ name: "client-test", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(worker.mcpUrl), { requestInit: { headers: workcell.headers } }),
    );
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((tool) => tool.name)).toContain("read_file");
    } finally {
      await mcp.close();
    }
  });

  it("lists and gets the worker, and runs commands with their exit codes", async () => {
    expect((await workcell.list()).map((each) => each.id)).toContain(worker.id);
    expect((await workcell.get(worker.id)).branch).toBe(worker.branch);
    const shell = await workcell.exec(worker.id, "echo hi; exit 4");
    expect(shell).toMatchObject({ exitCode: 4, stdout: "hi\n", timedOut: false });
    const argv = await workcell.exec(worker.id, ["printf", "%s|", "a b", "c"]);
    expect(argv.stdout).toBe("a b|c|");
  });

  it("shows the diff and exports the worker's commit as a branch of the source repository", async () => {
    await workcell.exec(
      worker.id,
      "echo 'export const z = 3;' > src/z.ts && git add src/z.ts && git commit -qm 'add z'",
    );
    const diff = await workcell.diff(worker.id);
    expect(diff.files).toEqual([expect.objectContaining({ path: "src/z.ts", status: "added", additions: 1 })]);
    const exported = await workcell.export(worker.id, { branch: "from-client" });
    expect(exported).toMatchObject({ branch: "from-client", uncommittedFiles: 0 });
    expect(git(repo, "rev-parse", "from-client")).toBe(exported.commit);
    expect(git(repo, "show", "from-client:src/z.ts")).toBe("export const z = 3;");
  });

  it("reads the permissions and an empty approval queue for the worker", async () => {
    const permissions = await workcell.permissions(worker.id);
    expect(permissions.net).toBe(false);
    expect(await workcell.approvals({ workerId: worker.id, status: "pending" })).toEqual([]);
  });

  it("pages events and watches the live stream, where a tool call arrives as it happens", async () => {
    const page = await workcell.events(worker.id, { limit: 1 });
    expect(page.events).toHaveLength(1);
    expect(page.events[0]?.type).toBe("created");
    expect(page.next).toBe(page.events[0]?.seq);

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 20_000);
    const seen: WorkcellEvent[] = [];
    const watching = (async () => {
      for await (const event of workcell.watch({ workerId: worker.id, type: "tool_call" }, controller.signal)) {
        seen.push(event);
        controller.abort();
      }
    })();
    const mcp = new Client({ name: "client-test", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(worker.mcpUrl), { requestInit: { headers: workcell.headers } }),
    );
    await mcp.callTool({ name: "read_file", arguments: { path: "src/z.ts" } });
    await mcp.close();
    await watching;
    clearTimeout(timer);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ workerId: worker.id, type: "tool_call", tool: "read_file" });
  });

  it("turns error answers into WorkcellError with the server's code and message", async () => {
    const missing = await workcell.get("deadbeef").catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(WorkcellError);
    expect(missing).toMatchObject({ status: 404, code: "not_found" });
    const invalid = await workcell.spawn({ repo: "relative/path" }).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 400, code: "invalid_input" });
    expect((invalid as Error).message).toMatch(/repo/);
    const wrongToken = new WorkcellClient({ url: test.plane.url, token: "not-the-token-at-all" });
    await expect(wrongToken.list()).rejects.toMatchObject({ status: 401, code: "unauthorized" });
    expect(() => new WorkcellClient({ url: test.plane.url, token: "" })).toThrow(/token/);
  });

  it("removes the worker and its workspace", async () => {
    const extra = await workcell.spawn({ repo });
    spawned.push(extra.id);
    expect(await workcell.remove(extra.id)).toEqual({ id: extra.id, status: "removed" });
    await expect(access(extra.workspace)).rejects.toThrow();
    expect((await workcell.list()).map((each) => each.id)).not.toContain(extra.id);
  });
});
