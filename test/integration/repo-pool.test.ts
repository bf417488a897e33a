import { realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

/** What a workspace looks like from inside its container: branch, commit, branches, status, and files the sandbox user does not own. */
async function describeWorkspace(
  worker: ApiWorker,
): Promise<{ branch: string; head: string; branches: string; status: string; foreign: string }> {
  const run = async (command: string) =>
    (
      await test.api<{ stdout: string; exitCode: number }>("POST", `/v1/workers/${worker.id}/exec`, { command })
    ).body.stdout.trim();
  return {
    branch: await run("git symbolic-ref --short HEAD"),
    head: await run("git rev-parse HEAD"),
    branches: await run("git for-each-ref --format='%(refname)' refs/heads"),
    status: await run("git status --porcelain"),
    foreign: await run('find . ! -user "$(id -u)" | head -5'),
  };
}

/** The pool's ready slots' containers. */
const readyContainers = () => test.plane.pools.forRepo(repo)?.readyContainers() ?? [];

beforeAll(async () => {
  repo = await createTestRepo(await createTempDir("workcell-repo-pool-"));
  test = await startTestPlane(undefined, { poolRepos: [{ repo, size: 1 }] });
  expect(await test.plane.pools.forRepo(repo)?.waitReady(1, 60_000)).toBe(true);
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

describe("a repository pool (WORKCELL_POOL_REPOS)", () => {
  it("hands over a slot cloned ahead of time, which is the workspace a cold spawn would have made", async () => {
    const ready = readyContainers();
    expect(ready).toHaveLength(1);
    const pooled = await spawnOn(test, repo);
    spawned.push(pooled.id);
    expect(ready).toContain(pooled.containerId);
    const events = (
      await test.api<{ events: { type: string; pooled?: boolean }[] }>("GET", `/v1/workers/${pooled.id}/events`)
    ).body.events;
    expect(events.find((event) => event.type === "created")?.pooled).toBe(true);

    // A cold worker of the same repository, for comparison (other limits keep it out of the pool).
    const cold = await spawnOn(test, repo, { resources: { memoryMb: 1024 } });
    spawned.push(cold.id);
    expect(ready).not.toContain(cold.containerId);
    const pooledView = await describeWorkspace(pooled);
    const coldView = await describeWorkspace(cold);
    expect(pooledView.branch).toBe(pooled.branch);
    expect(pooledView.head).toBe(git(repo, "rev-parse", "HEAD"));
    expect(pooledView.status).toBe("");
    expect(pooledView.foreign).toBe("");
    // The same branches, once each worker's own name is set aside: no placeholder is left.
    expect(pooledView.branches.replace(pooled.branch, "WORKER")).toBe(coldView.branches.replace(cold.branch, "WORKER"));

    // Its branch is the sandbox user's own: a commit lands and exports.
    const { client } = await test.connect(pooled.mcpUrl);
    await client.callTool({ name: "write_file", arguments: { path: "pooled.txt", content: "cloned ahead\n" } });
    await client.callTool({ name: "git_add", arguments: { files: ["pooled.txt"] } });
    const sha = (
      (await client.callTool({ name: "git_commit", arguments: { message: "from a repository pool" } }))
        .structuredContent as { sha: string }
    ).sha;
    expect(textOf(await client.callTool({ name: "read_file", arguments: { path: "README.md" } }))).toBe("# demo\n");
    await client.close();
    const exported = await test.api<{ branch: string; commit: string }>("POST", `/v1/workers/${pooled.id}/export`);
    expect(exported.body.commit).toBe(sha);
    expect(git(repo, "show", `${exported.body.branch}:pooled.txt`)).toBe("cloned ahead");
  });

  it("catches a slot up when the repository moved on after it was cloned", async () => {
    expect(await test.plane.pools.forRepo(repo)?.waitReady(1, 60_000)).toBe(true);
    const ready = readyContainers();
    const before = git(repo, "rev-parse", "HEAD");
    await writeFile(path.join(repo, "later.txt"), "committed after the slot was cloned\n");
    git(repo, "add", "later.txt");
    git(repo, "commit", "-q", "-m", "later");
    const moved = await spawnOn(test, repo);
    spawned.push(moved.id);
    expect(ready).toContain(moved.containerId);
    const view = await describeWorkspace(moved);
    expect(view.head).not.toBe(before);
    expect(view.head).toBe(git(repo, "rev-parse", "HEAD"));
    expect(view.branch).toBe(moved.branch);
    expect(view.status).toBe("");
    expect(view.foreign).toBe("");
    expect(view.branches).not.toMatch(/workcell\/pool/);
    const later = await test.api<{ stdout: string }>("POST", `/v1/workers/${moved.id}/exec`, {
      command: "cat later.txt",
    });
    expect(later.body.stdout).toBe("committed after the slot was cloned\n");
  });

  it("gives a worker of an older commit exactly that commit", async () => {
    expect(await test.plane.pools.forRepo(repo)?.waitReady(1, 60_000)).toBe(true);
    const ready = readyContainers();
    const older = git(repo, "rev-parse", "HEAD~1");
    const worker = await spawnOn(test, repo, { baseRef: older });
    spawned.push(worker.id);
    expect(ready).toContain(worker.containerId);
    const view = await describeWorkspace(worker);
    expect(view.head).toBe(older);
    expect(view.status).toBe("");
    expect(view.foreign).toBe("");
    const missing = await test.api<{ exitCode: number }>("POST", `/v1/workers/${worker.id}/exec`, {
      command: "test -e later.txt",
    });
    expect(missing.body.exitCode).not.toBe(0);
  });

  it("is set, listed and ended through /v1/pools while running, and bad input changes nothing", async () => {
    const other = await createTestRepo(await createTempDir("workcell-repo-pool-api-"));
    const set = await test.api<{ repo: string; size: number }>("POST", "/v1/pools", { repo: other, size: 1 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ repo: await realpath(other), size: 1 });
    const pool = test.plane.pools.forRepo(await realpath(other));
    expect(await pool?.waitReady(1, 60_000)).toBe(true);
    const listed = (await test.api<{ pools: { repo?: string; size: number; ready: number }[] }>("GET", "/v1/pools"))
      .body.pools;
    expect(listed).toContainEqual({ repo: await realpath(other), size: 1, ready: 1 });
    const [waiting] = pool?.readyContainers() ?? [];
    const worker = await spawnOn(test, other);
    spawned.push(worker.id);
    expect(worker.containerId).toBe(waiting);

    const tooBig = await test.api<{ error: { message: string } }>("POST", "/v1/pools", { repo: other, size: 65 });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.message).toMatch(/size/);
    const notRepo = await test.api<{ error: { message: string } }>("POST", "/v1/pools", {
      repo: await createTempDir("workcell-not-a-repo-"),
      size: 1,
    });
    expect(notRepo.status).toBe(400);
    expect(notRepo.body.error.message).toMatch(/^repo: .*is not one/);
    expect((await test.api<{ pools: unknown[] }>("GET", "/v1/pools")).body.pools).toHaveLength(2);

    // Size 0 ends the pool and removes its waiting containers.
    await expect.poll(() => pool?.available, { timeout: 60_000, interval: 200 }).toBe(1);
    const left = pool?.readyContainers() ?? [];
    expect((await test.api("POST", "/v1/pools", { repo: other, size: 0 })).status).toBe(200);
    expect(test.plane.pools.forRepo(await realpath(other))).toBeUndefined();
    for (const id of left) await expect(docker.getContainer(id).inspect()).rejects.toThrow(/no such container/i);
  });

  it("refuses at start a listed path that is not a repository, saying which and how to fix it", async () => {
    const notRepo = await createTempDir("workcell-not-a-repo-");
    await expect(startTestPlane(undefined, { poolRepos: [{ repo: notRepo, size: 1 }] })).rejects.toThrow(
      /WORKCELL_POOL_REPOS: .*is not one.*Fix the entry or remove it/,
    );
  });
});
