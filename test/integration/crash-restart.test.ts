import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABEL_INSTANCE, LABEL_MANAGED, LABEL_WORKER } from "../../runtime/docker/container-spec.js";
import {
  docker,
  removeContainersOf,
  spawnWorker,
  startTestPlane,
  stopTestPlane,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir } from "./helpers/test-repo.js";

let test: TestPlane;
let scratch: string;
const spawned: string[] = [];

beforeAll(async () => {
  test = await startTestPlane();
  scratch = await createTempDir("workcell-crash-");
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

async function spawn(): Promise<ApiWorker> {
  const { worker } = await spawnWorker(test, scratch);
  spawned.push(worker.id);
  return worker;
}

describe("a killed container", () => {
  it("is reported as failed, its workspace is intact, and an open MCP call gets an error instead of hanging", async () => {
    const worker = await spawn();
    const { client } = await test.connect(worker.mcpUrl);
    await client.callTool({ name: "write_file", arguments: { path: "precious.txt", content: "do not lose me" } });
    // Settle-handler attached at once: the rejection may arrive while the kill is awaited.
    const outcome = client.callTool({ name: "shell", arguments: { command: "sleep 60" } }).then(
      () => new Error("the call resolved although its container was killed"),
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await docker.getContainer(worker.containerId).kill();
    expect(String(await outcome)).toMatch(/sandbox ended before answering/);
    const after = await test.api<ApiWorker>("GET", `/v1/workers/${worker.id}`);
    expect(after.body.status).toBe("failed");
    expect(after.body.error).toMatch(/exited with code 137/);
    const events = await test.api<{ events: { type: string; to?: string }[] }>(
      "GET",
      `/v1/workers/${worker.id}/events?type=status_changed`,
    );
    expect(events.body.events.at(-1)).toMatchObject({ type: "status_changed", to: "failed" });
    expect(await readFile(path.join(worker.workspace, "precious.txt"), "utf8")).toBe("do not lose me");
    // Starting it again brings the same workspace back.
    const restarted = await test.api<ApiWorker>("POST", `/v1/workers/${worker.id}/start`);
    expect(restarted.body.status).toBe("running");
    const again = await test.connect(worker.mcpUrl);
    expect(textOf(await again.client.callTool({ name: "read_file", arguments: { path: "precious.txt" } }))).toBe(
      "do not lose me",
    );
    await again.client.close();
    await client.close().catch(() => undefined);
  });

  it("refuses the first session of a worker killed before it, with the reason, though a server was waiting for that session", async () => {
    const worker = await spawn();
    await docker.getContainer(worker.containerId).kill();
    const refused = await test.connect(worker.mcpUrl).then(
      () => new Error("a session opened in a killed container"),
      (error: unknown) => error,
    );
    // Refused by the worker's status, or, if the waiting server's end is not seen yet, by the
    // session's first request: an error that says so either way, never a session.
    expect(String(refused)).toMatch(/is failed, not running|sandbox ended before answering/);
    const after = await test.api<ApiWorker>("GET", `/v1/workers/${worker.id}`);
    expect(after.body.status).toBe("failed");
  });

  it("is recreated on start when the container was removed behind workcell's back", async () => {
    const worker = await spawn();
    await writeFile(path.join(worker.workspace, "notes.txt"), "kept");
    await docker.getContainer(worker.containerId).remove({ force: true });
    const failed = await test.api<ApiWorker>("GET", `/v1/workers/${worker.id}`);
    expect(failed.body.status).toBe("failed");
    expect(failed.body.error).toMatch(/no longer exists/);
    const started = await test.api<ApiWorker>("POST", `/v1/workers/${worker.id}/start`);
    expect(started.body.status).toBe("running");
    expect(started.body.containerId).not.toBe(worker.containerId);
    const result = await test.api<{ stdout: string }>("POST", `/v1/workers/${worker.id}/exec`, {
      command: "cat notes.txt",
    });
    expect(result.body.stdout).toBe("kept");
  });
});

describe("a restarted control plane", () => {
  it("still lists and serves its workers, and cleans up what does not match exactly once", async () => {
    const kept = await spawn();
    const lost = await spawn();
    // A labelled container with no stored worker: left over from a crash.
    const instance = (await docker.getContainer(kept.containerId).inspect()).Config.Labels[LABEL_INSTANCE] as string;
    const orphan = await docker.createContainer({
      Image: kept.image,
      Cmd: ["sleep", "infinity"],
      Labels: { [LABEL_MANAGED]: "true", [LABEL_WORKER]: "0rphan00", [LABEL_INSTANCE]: instance },
      HostConfig: { NetworkMode: "none" },
    });
    await test.plane.close();
    await docker.getContainer(lost.containerId).remove({ force: true });

    test = await startTestPlane(test.dataDir);
    const { body } = await test.api<{ workers: ApiWorker[] }>("GET", "/v1/workers");
    const byId = Object.fromEntries(body.workers.map((worker) => [worker.id, worker]));
    expect(byId[kept.id]?.status).toBe("running");
    expect(byId[lost.id]?.status).toBe("failed");
    await expect(docker.getContainer(orphan.id).inspect()).rejects.toMatchObject({ statusCode: 404 });

    const { client } = await test.connect(kept.mcpUrl.replace(/^http:\/\/[^/]+/, test.plane.url));
    expect(textOf(await client.callTool({ name: "read_file", arguments: { path: "README.md" } }))).toBe("# demo\n");
    await client.close();
  });
});
