import { spawn, type ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { LABEL_INSTANCE } from "../../../runtime/docker/container-spec.js";
import { LowdbStateStore } from "../../../runtime/store/lowdb-store.js";
import { PROJECT_ROOT } from "../../../server/control-plane.js";
import {
  docker,
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { createTempDir, createTestRepo } from "../helpers/test-repo.js";

let scratch: string;
let repo: string;
const spawned: string[] = [];

beforeAll(async () => {
  scratch = await createTempDir("workcell-crash-");
  repo = await createTestRepo(scratch);
});

afterAll(async () => {
  await removeContainersOf(spawned);
});

describe("a worker container killed with SIGKILL mid-operation", () => {
  let test: TestPlane;
  beforeAll(async () => {
    test = await startTestPlane();
  });
  afterAll(async () => {
    await stopTestPlane(test);
  });

  it.each(["write_file", "shell"])(
    "during %s: reported failed, workspace and commits intact, start brings it back",
    async (tool) => {
      const worker = await spawnOn(test, repo);
      spawned.push(worker.id);
      const { client } = await test.connect(worker.mcpUrl);
      await client.callTool({
        name: "write_file",
        arguments: { path: "kept.txt", content: "committed before the crash\n" },
      });
      await client.callTool({ name: "git_add", arguments: { files: ["kept.txt"] } });
      const sha = (
        (await client.callTool({ name: "git_commit", arguments: { message: "before the crash" } }))
          .structuredContent as { sha: string }
      ).sha;
      const inFlight =
        tool === "write_file"
          ? client.callTool({
              name: "write_file",
              arguments: { path: "big.bin", content: "z".repeat(20 * 1024 * 1024) },
            })
          : client.callTool({
              name: "shell",
              arguments: { command: "for i in $(seq 1 100000); do echo line $i >> growing.txt; done" },
            });
      const outcome = inFlight.then(
        () => "answered",
        (error: unknown) => String(error),
      );
      await new Promise((resolve) => setTimeout(resolve, 150));
      await docker.getContainer(worker.containerId).kill({ signal: "SIGKILL" });
      // The kill may also land before the bridge has taken the call (gVisor starts and stops
      // differently): the session is then already gone, which is as clean an end.
      expect(await outcome).toMatch(/answered|sandbox ended before answering|Session not found/);
      expect((await test.api<ApiWorker>("GET", `/v1/workers/${worker.id}`)).body.status).toBe("failed");
      expect(await readFile(path.join(worker.workspace, "kept.txt"), "utf8")).toBe("committed before the crash\n");
      expect((await test.api<ApiWorker>("POST", `/v1/workers/${worker.id}/start`)).body.status).toBe("running");
      const again = await test.connect(worker.mcpUrl);
      expect(textOf(await again.client.callTool({ name: "git_log", arguments: { maxCount: 1 } }))).toContain(sha);
      expect(textOf(await again.client.callTool({ name: "read_file", arguments: { path: "kept.txt" } }))).toBe(
        "committed before the crash\n",
      );
      await again.client.close();
      await client.close().catch(() => undefined);
    },
  );
});

interface RunningPlane {
  child: ChildProcess;
  url: string;
}

/** Starts the real CLI (`workcell serve`) as its own process on a random port. */
function startCli(dataDir: string): Promise<RunningPlane> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(PROJECT_ROOT, "server", "cli.ts"), "serve"], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      WORKCELL_DATA_DIR: dataDir,
      WORKCELL_PORT: "0",
      WORKCELL_TOKEN: TEST_TOKEN,
      WORKCELL_IMAGE: inject("sandboxImage"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`the control plane did not start: ${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] as string });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the control plane exited with ${code}: ${output}`));
    });
  });
}

function killHard(plane: RunningPlane): Promise<void> {
  return new Promise((resolve) => {
    if (plane.child.exitCode !== null) return resolve();
    plane.child.once("exit", () => resolve());
    plane.child.kill("SIGKILL");
  });
}

const api = (url: string, method: string, route: string, body?: unknown) =>
  fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe("the control plane killed with SIGKILL in the middle of state writes, 50 times", () => {
  it("always leaves a complete state file, and re-adopts or cleans up every worker exactly once", async () => {
    const dataDir = await createTempDir("workcell-kill9-");
    let plane = await startCli(dataDir);
    const base = (await (await api(plane.url, "POST", "/v1/workers", { repo })).json()) as ApiWorker;
    spawned.push(base.id);
    for (let round = 0; round < 50; round += 1) {
      if (round > 0) plane = await startCli(dataDir);
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 8; i += 1)
        writes.push(
          api(plane.url, "PATCH", `/v1/workers/${base.id}/permissions`, { env: [`ROUND_${round}_${i}`] }).catch(
            () => undefined,
          ),
        );
      if (round % 10 === 0)
        writes.push(
          api(plane.url, "POST", "/v1/workers", { repo }).then(
            async (r) => r.ok && spawned.push(((await r.json()) as ApiWorker).id),
            () => undefined,
          ),
        );
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 60)));
      await killHard(plane);
      await Promise.allSettled(writes);
      // Whatever instant the kill hit, the file is a complete, valid state.
      const state = JSON.parse(await readFile(path.join(dataDir, "state.json"), "utf8")) as { version: number };
      expect(state.version).toBe(1);
      await expect(LowdbStateStore.open(dataDir)).resolves.toBeDefined();
    }

    plane = await startCli(dataDir);
    try {
      const { workers } = (await (await api(plane.url, "GET", "/v1/workers")).json()) as { workers: ApiWorker[] };
      expect(workers.find((w) => w.id === base.id)?.status).toBe("running");
      const instance = (await docker.getContainer(base.containerId).inspect()).Config.Labels[LABEL_INSTANCE] as string;
      const containers = await docker.listContainers({
        all: true,
        filters: { label: [`${LABEL_INSTANCE}=${instance}`] },
      });
      const stored = new Set(workers.map((w) => w.containerId).filter(Boolean));
      // No orphan containers: every labelled container belongs to a stored worker, once.
      expect(containers.map((c) => c.Id).filter((id) => !stored.has(id))).toEqual([]);
      expect(new Set(containers.map((c) => c.Id)).size).toBe(containers.length);
      expect((await readdir(dataDir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
      for (const worker of workers) await api(plane.url, "DELETE", `/v1/workers/${worker.id}`);
    } finally {
      await killHard(plane);
    }
  }, 600_000);
});
