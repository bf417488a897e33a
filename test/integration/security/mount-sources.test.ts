import { createHash } from "node:crypto";
import { chown, lstat, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABEL_INSTANCE } from "../../../runtime/docker/container-spec.js";
import { LABEL_POOL } from "../../../runtime/workers/worker-pool.js";
import {
  docker,
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { createTempDir, createTestRepo, git } from "../helpers/test-repo.js";

// Host paths Docker resolves for a worker: the source repository a warm-pool claim copies
// from, the granted directories and the deny overlays inside them. None of them may become
// a way to touch a host file the worker was not given.

const SANDBOX_UID = 1000;

type ExecResult = { exitCode: number | null; stdout: string; stderr: string };

async function exec(test: TestPlane, worker: ApiWorker, command: string): Promise<ExecResult> {
  const response = await test.api<ExecResult>("POST", `/v1/workers/${worker.id}/exec`, { command, timeoutMs: 60_000 });
  expect(response.status).toBe(200);
  return response.body;
}

/** Every file under `dir` with its content hash, owner and link count (lstat, no symlink followed). */
async function snapshotTree(dir: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const name of await readdir(dir, { recursive: true })) {
    const file = path.join(dir, name);
    const stats = await lstat(file);
    if (!stats.isFile()) continue;
    const digest = createHash("sha256")
      .update(await readFile(file))
      .digest("hex");
    found.set(name, `${digest} uid=${stats.uid} gid=${stats.gid}`);
  }
  return found;
}

// watchdog: the workspace stays on the source's filesystem, where git could hardlink;
// auto: the workspace is its own filesystem image (when the host allows it).
describe.each(["watchdog", "auto"] as const)(
  "a warm-pool claim never shares an inode with the source repository (disk quota %s)",
  (diskQuota) => {
    let test: TestPlane;
    let repo: string;
    const spawned: string[] = [];

    beforeAll(async () => {
      test = await startTestPlane(undefined, { poolSize: 1, diskQuota });
      repo = await createTestRepo(await createTempDir("workcell-pool-source-"));
      expect(await test.plane.pool?.waitReady(1, 60_000)).toBe(true);
    });

    afterAll(async () => {
      if (test !== undefined) await stopTestPlane(test);
      await removeContainersOf(spawned);
      if (repo !== undefined) await rm(path.dirname(repo), { recursive: true, force: true });
    });

    it("overwriting the workspace's object files in place from inside leaves the root-owned source intact", async () => {
      expect((await lstat(path.join(repo, ".git", "objects"))).uid).toBe(0);
      const instance = createHash("sha256").update(test.dataDir).digest("hex").slice(0, 16);
      const ready = (
        await docker.listContainers({
          all: true,
          filters: { label: [`${LABEL_POOL}=true`, `${LABEL_INSTANCE}=${instance}`] },
        })
      ).map((c) => c.Id);
      const before = await snapshotTree(path.join(repo, ".git", "objects"));
      const headBefore = git(repo, "show", "HEAD:src/math.ts");

      const worker = await spawnOn(test, repo);
      spawned.push(worker.id);
      expect(ready).toContain(worker.containerId);
      const attack = await exec(
        test,
        worker,
        `n=0; for f in $(find .git/objects -type f); do chmod u+w "$f" 2>/dev/null; if printf evil > "$f" 2>/dev/null; then n=$((n+1)); fi; done; echo "overwritten=$n"`,
      );
      expect(attack.stdout).toMatch(/overwritten=\d+/);

      expect(await snapshotTree(path.join(repo, ".git", "objects"))).toEqual(before);
      expect(git(repo, "show", "HEAD:src/math.ts")).toBe(headBefore);
      expect(() => git(repo, "fsck", "--full")).not.toThrow();
      for (const name of await readdir(path.join(repo, ".git", "objects"), { recursive: true })) {
        expect((await lstat(path.join(repo, ".git", "objects", name))).uid, name).toBe(0);
      }
    });
  },
);

describe.each(["runc", "runsc"])("bind sources under %s", (runtime) => {
  let test: TestPlane;
  let scratch: string;
  let repo: string;
  const spawned: string[] = [];

  beforeAll(async () => {
    test = await startTestPlane(undefined, runtime === "runc" ? {} : { runtime });
    scratch = await createTempDir("workcell-binds-");
    repo = await createTestRepo(scratch);
  });

  afterAll(async () => {
    if (test !== undefined) await stopTestPlane(test);
    await removeContainersOf(spawned);
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it("a deny overlay's parent swapped for a symlink to another workspace: the restart is refused and mounts nothing", async () => {
    const grant = path.join(scratch, "grant");
    const denied = path.join(grant, "p", "src");
    await mkdir(denied, { recursive: true });
    await writeFile(path.join(denied, "locked.txt"), "original\n");
    for (const dir of [grant, path.join(grant, "p"), denied, path.join(denied, "locked.txt")])
      await chown(dir, SANDBOX_UID, SANDBOX_UID);

    const victim = await spawnOn(test, repo);
    spawned.push(victim.id);
    const attacker = await spawnOn(test, repo, { permissions: { write: [grant], deny: { write: [denied] } } });
    spawned.push(attacker.id);

    const swap = await exec(test, attacker, `mv ${grant}/p ${grant}/p.old && ln -s ${victim.workspace} ${grant}/p`);
    expect(swap.exitCode, swap.stderr).toBe(0);
    await docker.getContainer(attacker.containerId).kill();

    const started = await test.api<{ error: { code: string; message: string; details?: { path?: string } } }>(
      "POST",
      `/v1/workers/${attacker.id}/start`,
    );
    expect(started.status).toBe(409);
    expect(started.body.error.message).toContain(denied);
    expect(started.body.error.details?.path).toBe(denied);
    const info = await docker.getContainer(attacker.containerId).inspect();
    expect(info.State.Running).toBe(false);
    expect((await test.api<ApiWorker>("GET", `/v1/workers/${attacker.id}`)).body.status).not.toBe("running");
    // The victim's workspace is untouched and still its own.
    expect(git(victim.workspace, "-c", "safe.directory=*", "status", "--porcelain")).toBe("");
  });

  it.each([["/var/run"], ["/run"]])(
    "read: [%s] is refused with a 400 naming permissions.read, at creation and in a PATCH",
    async (granted) => {
      const created = await test.api<{ error: { details?: { field?: string } } }>("POST", "/v1/workers", {
        repo,
        permissions: { read: [granted] },
      });
      expect(created.status).toBe(400);
      expect(created.body.error.details?.field).toBe("permissions.read");

      const worker = await spawnOn(test, repo);
      spawned.push(worker.id);
      const patched = await test.api<{ error: { details?: { field?: string } } }>(
        "PATCH",
        `/v1/workers/${worker.id}/permissions`,
        { read: [granted] },
      );
      expect(patched.status).toBe(400);
      expect(patched.body.error.details?.field).toBe("permissions.read");
      expect(
        (await test.api<{ permissions: { read: string[] } }>("GET", `/v1/workers/${worker.id}/permissions`)).body
          .permissions.read,
      ).toEqual([]);
    },
  );

  it("a permission prompt for /var/run approved for the worker's life is refused, naming permissions.read", async () => {
    const worker = await spawnOn(test, repo, { permissions: { prompt: true } });
    spawned.push(worker.id);
    const { client } = await test.connect(worker.mcpUrl);
    try {
      const call = client.callTool({ name: "list_directory", arguments: { path: "/var/run" } }).catch(() => undefined);
      let approvals: { id: string; input: { kind?: string; target?: string } }[] = [];
      await expect
        .poll(
          async () => {
            approvals = (
              await test.api<{ approvals: typeof approvals }>(
                "GET",
                `/v1/approvals?status=pending&workerId=${worker.id}`,
              )
            ).body.approvals;
            return approvals.length;
          },
          { timeout: 10_000, interval: 100 },
        )
        .toBe(1);
      expect(approvals[0]?.input).toMatchObject({ kind: "read", target: "/var/run" });
      // The approval is stored before its call starts waiting; the event comes between the two.
      await expect
        .poll(
          async () =>
            (await test.api<{ events: { type: string }[] }>("GET", `/v1/workers/${worker.id}/events`)).body.events.some(
              (event) => event.type === "approval_requested",
            ),
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true);
      const decided = await test.api<{ error?: { details?: { field?: string } } }>(
        "POST",
        `/v1/approvals/${approvals[0]?.id}`,
        { decision: "approve", scope: "worker" },
      );
      expect(decided.status).toBe(400);
      expect(decided.body.error?.details?.field).toBe("permissions.read");
      await call;
      expect(
        (await test.api<{ permissions: { read: string[] } }>("GET", `/v1/workers/${worker.id}/permissions`)).body
          .permissions.read,
      ).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
