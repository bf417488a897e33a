import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  docker,
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, createTestRepo } from "./helpers/test-repo.js";

let test: TestPlane;
let repo: string;
const spawned: string[] = [];

beforeAll(async () => {
  test = await startTestPlane(undefined, { watchdogIntervalMs: 300 });
  repo = await createTestRepo(await createTempDir("workcell-resources-"));
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

async function spawn(resources: Record<string, unknown>): Promise<ApiWorker> {
  const worker = await spawnOn(test, repo, { resources });
  spawned.push(worker.id);
  return worker;
}

const exec = (worker: ApiWorker, command: string, timeoutMs = 30_000) =>
  test.api<{
    exitCode: number | null;
    stdout: string;
    stderr: string;
    signal: string | null;
    timedOut: boolean;
    oomKilled: boolean;
  }>("POST", `/v1/workers/${worker.id}/exec`, { command, timeoutMs });

const getWorker = async (worker: ApiWorker) =>
  (await test.api<ApiWorker & { stopReason?: string }>("GET", `/v1/workers/${worker.id}`)).body;

describe("resource limits", () => {
  it("a fork bomb stops at the PID limit, and the worker and the control plane keep answering", async () => {
    const worker = await spawn({ pids: 64 });
    const bomb = await exec(worker, "bomb() { bomb | bomb & }; bomb", 5_000);
    expect(bomb.status).toBe(200);
    const host = (await docker.getContainer(worker.containerId).inspect()).HostConfig;
    if (worker.runtime === "runsc") {
      // Under gVisor the sandbox's processes are capped inside (RLIMIT_NPROC, per sandbox;
      // see container-spec.ts for why the engine's PID limit is not used).
      expect(host.Ulimits).toEqual([{ Name: "nproc", Soft: 64, Hard: 64 }]);
    } else {
      expect(host.PidsLimit).toBe(64);
    }
    await expect
      .poll(async () => (await exec(worker, "echo still here")).body.stdout, { timeout: 20_000, interval: 500 })
      .toBe("still here\n");
    expect((await test.api("GET", "/health")).status).toBe(200);
    expect((await getWorker(worker)).status).toBe("running");
  });

  it("allocating twice the memory limit kills only that process (under gVisor, the sandbox), and says so", async () => {
    const worker = await spawn({ memoryMb: 128 });
    const hog = await exec(worker, "python3 -c 'x = bytearray(256 * 1024 * 1024); print(len(x))'");
    if (worker.runtime === "runsc") {
      // Under gVisor the memory limit holds for the sandbox as a whole (its kernel included),
      // so running out ends the sandbox: the answer says so, and a start brings it back.
      expect(hog.status).toBe(409);
      expect(JSON.stringify(hog.body)).toMatch(/ran out of memory \(resources\.memoryMb\)/);
      expect((await getWorker(worker)).status).toBe("failed");
      expect((await test.api("POST", `/v1/workers/${worker.id}/start`)).status).toBe(200);
    } else {
      expect(hog.body).toMatchObject({ signal: "SIGKILL", oomKilled: true, timedOut: false });
    }
    expect((await exec(worker, "echo alive")).body.stdout).toBe("alive\n");
    expect((await getWorker(worker)).status).toBe("running");
  });

  it("filling the workspace past diskMb fails with ENOSPC; the worker keeps running and the watchdog reports it", async () => {
    const worker = await spawn({ diskMb: 20 });
    const fill = await exec(worker, "head -c 40000000 /dev/zero > big.bin");
    expect(fill.body.stderr).toMatch(/No space left on device/);
    const eventsFile = path.join(test.dataDir, "workers", worker.id, "events.jsonl");
    const diskEvents = async () =>
      (await readFile(eventsFile, "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; level?: string })
        .filter((event) => event.type === "disk_usage");
    await expect
      .poll(async () => (await diskEvents()).map((event) => event.level), { timeout: 15_000, interval: 300 })
      .toContain("full");
    expect((await getWorker(worker)).status).toBe("running");
    expect((await exec(worker, "rm big.bin && echo freed")).body.stdout).toBe("freed\n");
  });

  it("where the host cannot mount images, the watchdog stops a worker past diskMb and records why", async () => {
    const fallback = await startTestPlane(undefined, { watchdogIntervalMs: 300, diskQuota: "watchdog" });
    try {
      const response = await fallback.api<ApiWorker & { diskEnforcement: string; stopReason?: string }>(
        "POST",
        "/v1/workers",
        { repo, resources: { diskMb: 20 } },
      );
      spawned.push(response.body.id);
      expect(response.body.diskEnforcement).toBe("watchdog");
      await fallback.api("POST", `/v1/workers/${response.body.id}/exec`, {
        command: "head -c 40000000 /dev/zero > big.bin",
      });
      const current = async () =>
        (await fallback.api<{ status: string; stopReason?: string }>("GET", `/v1/workers/${response.body.id}`)).body;
      await expect.poll(async () => (await current()).status, { timeout: 15_000, interval: 300 }).toBe("stopped");
      expect((await current()).stopReason).toMatch(/over its 20 MB limit \(resources.diskMb\)/);
      const events = await readFile(path.join(fallback.dataDir, "workers", response.body.id, "events.jsonl"), "utf8");
      expect(events).toContain('"type":"stopped_by_limit"');
    } finally {
      await stopTestPlane(fallback);
    }
  });

  it("idleTimeoutMs stops a worker nobody uses, and timeoutMs one that lived too long", async () => {
    const idle = await spawn({ idleTimeoutMs: 1_500 });
    const lifetime = await spawn({ timeoutMs: 2_000 });
    await expect.poll(async () => (await getWorker(idle)).status, { timeout: 15_000, interval: 300 }).toBe("stopped");
    expect((await getWorker(idle)).stopReason).toMatch(/idleTimeoutMs/);
    await expect
      .poll(async () => (await getWorker(lifetime)).status, { timeout: 15_000, interval: 300 })
      .toBe("stopped");
    expect((await getWorker(lifetime)).stopReason).toMatch(/timeoutMs/);
  });
});
