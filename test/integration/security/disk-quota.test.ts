import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { createTempDir, createTestRepo } from "../helpers/test-repo.js";

// A workspace limit the kernel enforces: a write past diskMb fails inside the container
// with ENOSPC instead of landing on the host disk and being noticed seconds later by du,
// and empty files (inodes du does not weigh) run out too.

const DISK_MB = 64;
const MB = 1024 * 1024;

/** KiB the data dir takes on its own filesystem (-x: not what is mounted inside it). */
function allocatedKb(dir: string): number {
  return Number.parseInt(execFileSync("du", ["-skx", dir], { encoding: "utf8" }).split(/\s/)[0] ?? "", 10);
}

/** The host's mount of `target`, from /proc/self/mountinfo. */
async function hostMountOf(target: string): Promise<{ options: string[]; fsType: string } | undefined> {
  for (const line of (await readFile("/proc/self/mountinfo", "utf8")).split("\n")) {
    const [left = "", right = ""] = line.split(" - ");
    const fields = left.split(" ");
    if (fields[4] === target) return { options: (fields[5] ?? "").split(","), fsType: right.split(" ")[0] ?? "" };
  }
  return undefined;
}

describe.each(["runc", "runsc"])("the workspace disk limit under %s", (runtime) => {
  let test: TestPlane;
  let repo: string;
  const spawned: string[] = [];

  beforeAll(async () => {
    test = await startTestPlane(undefined, { runtime });
    repo = await createTestRepo(await createTempDir("workcell-quota-"));
  });

  afterAll(async () => {
    if (test !== undefined) await stopTestPlane(test);
    await removeContainersOf(spawned);
  });

  async function spawn(): Promise<ApiWorker & { diskEnforcement?: string }> {
    const worker = await spawnOn(test, repo, { resources: { diskMb: DISK_MB } });
    spawned.push(worker.id);
    return worker;
  }

  const exec = async (worker: ApiWorker, command: string) => {
    const response = await test.api<{ exitCode: number | null; stdout: string; stderr: string; timedOut: boolean }>(
      "POST",
      `/v1/workers/${worker.id}/exec`,
      { command, timeoutMs: 120_000 },
    );
    expect(response.status).toBe(200);
    return response.body;
  };

  it("fallocate and dd past diskMb fail with ENOSPC inside, and the host disk does not take the write", async () => {
    const worker = await spawn();
    const before = allocatedKb(test.dataDir);

    const fallocate = await exec(worker, `fallocate -l ${DISK_MB * 10}M huge.bin`);
    expect(fallocate.exitCode).not.toBe(0);
    expect(fallocate.stderr).toMatch(/No space left on device/);

    const dd = await exec(worker, `dd if=/dev/zero of=fill.bin bs=1M count=${DISK_MB * 4} 2>&1; echo "exit=$?"`);
    expect(dd.stdout).toMatch(/No space left on device/);
    expect(dd.stdout).toMatch(/exit=1/);
    const written = Number((await exec(worker, "wc -c < fill.bin")).stdout.trim());
    expect(written).toBeLessThanOrEqual(DISK_MB * MB);

    // Everything the worker could put on the host is its image: at most diskMb, far from the 896 MB attempted.
    const grownKb = allocatedKb(test.dataDir) - before;
    expect(grownKb).toBeLessThanOrEqual(DISK_MB * 1024 + 1024);

    expect((await test.api<{ status: string }>("GET", `/v1/workers/${worker.id}`)).body.status).toBe("running");
    expect(worker.diskEnforcement).toBe("image");
    const mount = await hostMountOf(worker.workspace);
    expect(mount?.fsType).toBe("ext4");
    expect(mount?.options).toEqual(expect.arrayContaining(["nosuid", "nodev"]));
    await exec(worker, "rm -f huge.bin fill.bin");
    // (wc, not stat: statx answers EINVAL in runsc execs on this engine, whatever the filesystem.)
    const after = await exec(worker, "head -c 8000000 /dev/urandom > ok.bin && wc -c < ok.bin && git status --short");
    expect(after.exitCode, JSON.stringify(after)).toBe(0);
    expect(after.stdout).toMatch(/^8000000\n/);
  });

  it("creating far more empty files than the inode limit fails, and the worker keeps working after deleting", async () => {
    const worker = await spawn();
    const attempted = 20_000;
    const flood = await exec(
      worker,
      `mkdir many && cd many && seq -f f%g 1 ${attempted} | xargs touch 2>/tmp/touch.err; ls | wc -l; grep -c 'No space left on device' /tmp/touch.err`,
    );
    const [created = "", refused = ""] = flood.stdout.trim().split("\n");
    // One inode per 16 KiB: 4,096 for 64 MB, some of them taken by the checkout.
    expect(Number(created)).toBeLessThan((DISK_MB * MB) / 16_384);
    expect(Number(refused)).toBeGreaterThan(attempted / 2);

    await exec(worker, "rm -rf many");
    const after = await exec(worker, "echo fine > after.txt && cat after.txt && git status --short");
    expect(after.exitCode).toBe(0);
    expect(after.stdout).toContain("fine");
    expect(after.stdout).toContain("after.txt");
  });
});
