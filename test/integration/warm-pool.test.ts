import { createHash } from "node:crypto";
import { access } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABEL_INSTANCE } from "../../runtime/docker/container-spec.js";
import { LABEL_POOL } from "../../runtime/workers/worker-pool.js";
import {
  docker,
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, createTestRepo, git } from "./helpers/test-repo.js";

let test: TestPlane;
let repo: string;
const spawned: string[] = [];

/** This control plane's pool-labelled containers (the instance label is a hash of its data dir). */
const poolContainers = async () => {
  const instance = createHash("sha256").update(test.dataDir).digest("hex").slice(0, 16);
  return (
    await docker.listContainers({
      all: true,
      filters: { label: [`${LABEL_POOL}=true`, `${LABEL_INSTANCE}=${instance}`] },
    })
  ).map((c) => c.Id);
};

beforeAll(async () => {
  test = await startTestPlane(undefined, { poolSize: 2 });
  repo = await createTestRepo(await createTempDir("workcell-pool-"));
  expect(await test.plane.pool?.waitReady(2, 30_000)).toBe(true);
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

describe("the warm pool", () => {
  it("hands a ready container to a default spawn, which then behaves like a cold-started worker", async () => {
    const ready = await poolContainers();
    expect(ready).toHaveLength(2);
    const worker = await spawnOn(test, repo);
    spawned.push(worker.id);
    expect(ready).toContain(worker.containerId);
    const info = await docker.getContainer(worker.containerId).inspect();
    expect(info.HostConfig).toMatchObject({
      NetworkMode: "none",
      CapDrop: ["ALL"],
      ReadonlyRootfs: true,
      Init: true,
      Privileged: false,
    });
    expect(info.HostConfig.SecurityOpt).toContain("no-new-privileges:true");

    const { client } = await test.connect(worker.mcpUrl);
    expect(textOf(await client.callTool({ name: "read_file", arguments: { path: "README.md" } }))).toBe("# demo\n");
    await client.callTool({ name: "write_file", arguments: { path: "pooled.txt", content: "from the pool\n" } });
    await client.callTool({ name: "git_add", arguments: { files: ["pooled.txt"] } });
    const sha = (
      (await client.callTool({ name: "git_commit", arguments: { message: "pooled commit" } })).structuredContent as {
        sha: string;
      }
    ).sha;
    expect(textOf(await client.callTool({ name: "read_file", arguments: { path: "../../etc/passwd" } }))).toMatch(
      /refused/,
    );
    await client.close();
    const exported = await test.api<{ branch: string; commit: string }>("POST", `/v1/workers/${worker.id}/export`);
    expect(exported.body.commit).toBe(sha);
    expect(git(repo, "show", `${exported.body.branch}:pooled.txt`)).toBe("from the pool");

    // Stop and start recreate the container with the worker's own spec; the workspace stays.
    await test.api("POST", `/v1/workers/${worker.id}/stop`);
    const restarted = await test.api<ApiWorker>("POST", `/v1/workers/${worker.id}/start`);
    expect(restarted.body.status).toBe("running");
    const readBack = await test.api<{ stdout: string }>("POST", `/v1/workers/${worker.id}/exec`, {
      command: "cat pooled.txt",
    });
    expect(readBack.body.stdout).toBe("from the pool\n");
  });

  it("refills in the background without ever holding more than its size", async () => {
    await expect.poll(async () => (await poolContainers()).length, { timeout: 30_000, interval: 200 }).toBe(2);
    expect(test.plane.pool?.available).toBe(2);
  });

  it("starts workers whose policy or limits differ cold", async () => {
    const before = await poolContainers();
    const custom = await spawnOn(test, repo, { resources: { memoryMb: 1024 } });
    spawned.push(custom.id);
    expect(before).not.toContain(custom.containerId);
    expect(await poolContainers()).toEqual(before);
  });

  it("is reconciled on restart and cleaned up on shutdown", async () => {
    const worker = await spawnOn(test, repo);
    spawned.push(worker.id);
    await expect.poll(async () => (await poolContainers()).length, { timeout: 30_000, interval: 200 }).toBe(3);
    await test.plane.close();
    // The claimed container survives a shutdown (it is a worker now); the pool's do not.
    expect(await poolContainers()).toEqual([worker.containerId]);
    test = await startTestPlane(test.dataDir, { poolSize: 2 });
    expect((await test.api<ApiWorker>("GET", `/v1/workers/${worker.id}`)).body.status).toBe("running");
    expect(await test.plane.pool?.waitReady(2, 30_000)).toBe(true);
    expect((await poolContainers()).length).toBe(3);
    await expect(
      access(path.join(test.dataDir, "workers", worker.id, "workspace", "README.md")),
    ).resolves.toBeUndefined();
  });
});
