import { execFileSync } from "node:child_process";
import { access, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createDiskImage, isMountPoint } from "../../runtime/workspace/disk-image.js";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, createTestRepo } from "./helpers/test-repo.js";

// The life of a workspace image: made with the worker (or the pool slot), followed across
// the slot's rename, re-mounted after a restart, copied out or deleted on removal.

type Worker = ApiWorker & { diskEnforcement?: string; status: string };
const spawned: string[] = [];
let open: TestPlane | undefined;

afterEach(async () => {
  if (open !== undefined) await stopTestPlane(open);
  open = undefined;
});

afterAll(async () => {
  await removeContainersOf(spawned);
});

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

async function plane(dataDir?: string, overrides: Parameters<typeof startTestPlane>[1] = {}): Promise<TestPlane> {
  open = await startTestPlane(dataDir, overrides);
  return open;
}

async function spawn(test: TestPlane, body: Record<string, unknown> = {}): Promise<Worker> {
  const repo = await createTestRepo(await createTempDir("workcell-images-"));
  const worker = (await spawnOn(test, repo, body)) as Worker;
  spawned.push(worker.id);
  return worker;
}

async function exec(test: TestPlane, worker: ApiWorker, command: string) {
  return (
    await test.api<{ exitCode: number; stdout: string; stderr: string }>("POST", `/v1/workers/${worker.id}/exec`, {
      command,
    })
  ).body;
}

describe("workspace images", () => {
  it("a pool slot's image follows the slot's rename on claim, and the worker gets the default limit", async () => {
    const test = await plane(undefined, { poolSize: 1 });
    expect(await test.plane.pool?.waitReady(1, 60_000)).toBe(true);
    const worker = await spawn(test);
    expect(worker.diskEnforcement).toBe("image");
    expect(await isMountPoint(worker.workspace)).toBe(true);
    // df inside sees the image (10,240 MB less ext4's metadata), and what it writes lands in the mount on the host.
    const df = await exec(test, worker, "df -Pm /workspace | tail -1 && echo claimed > claimed.txt");
    const sizeMb = Number(df.stdout.trim().split(/\s+/)[1]);
    expect(sizeMb).toBeGreaterThan(9_000);
    expect(sizeMb).toBeLessThanOrEqual(10_240);
    expect(await readFile(path.join(worker.workspace, "claimed.txt"), "utf8")).toBe("claimed\n");
    expect(await exists(path.join(path.dirname(worker.workspace), "workspace.img"))).toBe(true);

    await test.api("DELETE", `/v1/workers/${worker.id}`);
    expect(await isMountPoint(worker.workspace)).toBe(false);
    expect(await exists(worker.workspace)).toBe(false);
    expect(await exists(`${worker.workspace}.img`)).toBe(false);
  });

  it("an image unmounted behind the control plane's back (a reboot) is mounted again on restart, files and limit intact", async () => {
    let test = await plane();
    const dataDir = test.dataDir;
    const worker = await spawn(test, { resources: { diskMb: 32 } });
    expect((await exec(test, worker, "echo kept > note.txt")).exitCode).toBe(0);
    await test.api("POST", `/v1/workers/${worker.id}/stop`);
    await test.plane.close();
    open = undefined;
    execFileSync("umount", [worker.workspace]);
    expect(await isMountPoint(worker.workspace)).toBe(false);

    test = await plane(dataDir);
    expect(await isMountPoint(worker.workspace)).toBe(true);
    const started = await test.api<Worker>("POST", `/v1/workers/${worker.id}/start`);
    expect(started.body.status).toBe("running");
    expect((await exec(test, worker, "cat note.txt")).stdout).toBe("kept\n");
    const fill = await exec(test, worker, "head -c 64000000 /dev/zero > big.bin");
    expect(fill.stderr).toMatch(/No space left on device/);

    // start mounts it too, when nothing else did.
    await test.api("POST", `/v1/workers/${worker.id}/stop`);
    execFileSync("umount", [worker.workspace]);
    expect((await test.api<Worker>("POST", `/v1/workers/${worker.id}/start`)).body.status).toBe("running");
    expect((await exec(test, worker, "cat note.txt")).stdout).toBe("kept\n");
  });

  it("an image no stored worker owns (a control plane killed mid-create) is unmounted and deleted on restart", async () => {
    const test = await plane();
    const worker = await spawn(test, { resources: { diskMb: 32 } });
    const orphan = path.join(test.dataDir, "workers", "0rphan00", "workspace");
    await createDiskImage(orphan, 16);
    expect(await isMountPoint(orphan)).toBe(true);
    await test.plane.close();
    open = undefined;

    const restarted = await plane(test.dataDir);
    expect(await isMountPoint(orphan)).toBe(false);
    expect(await exists(`${orphan}.img`)).toBe(false);
    // The stored worker's image is untouched.
    expect(await isMountPoint(worker.workspace)).toBe(true);
    expect((await exec(restarted, worker, "cat README.md")).stdout).toBe("# demo\n");
  });

  it("keepWorkspace copies the files out into a plain directory and deletes the image", async () => {
    const test = await plane();
    const worker = await spawn(test, { resources: { diskMb: 32 } });
    await exec(
      test,
      worker,
      "mkdir -p deep/er && echo mine > deep/er/file.txt && ln -s deep/er/file.txt link && cp /bin/true prog && chmod u+s prog",
    );
    const removed = await test.api<{ workspace?: string }>("DELETE", `/v1/workers/${worker.id}?keepWorkspace=true`);
    expect(removed.body.workspace).toBe(worker.workspace);
    expect(await isMountPoint(worker.workspace)).toBe(false);
    expect(await exists(`${worker.workspace}.img`)).toBe(false);
    expect(await readFile(path.join(worker.workspace, "deep/er/file.txt"), "utf8")).toBe("mine\n");
    expect(await readFile(path.join(worker.workspace, "link"), "utf8")).toBe("mine\n");
    expect(await readFile(path.join(worker.workspace, "README.md"), "utf8")).toBe("# demo\n");
    // Outside the nosuid mount, a set-id bit would mean something: it is dropped.
    expect((await stat(path.join(worker.workspace, "prog"))).mode & 0o6000).toBe(0);
  });

  it("with WORKCELL_DISK_QUOTA=watchdog the control plane says so, and workers record that the watchdog enforces diskMb", async () => {
    const test = await plane(undefined, { diskQuota: "watchdog" });
    expect(test.logs.join("\n")).toMatch(/workspace disk limits are NOT hard: WORKCELL_DISK_QUOTA=watchdog/);
    const worker = await spawn(test, { resources: { diskMb: 32 } });
    expect(worker.diskEnforcement).toBe("watchdog");
    expect(await isMountPoint(worker.workspace)).toBe(false);
  });
});
