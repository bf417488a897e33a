import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isoNow } from "../../runtime/clock/clock.js";
import type { ContainerDriver } from "../../runtime/docker/container-driver.js";
import { LABEL_INSTANCE, sandboxUser } from "../../runtime/docker/container-spec.js";
import { catalogOf } from "../../runtime/docker/runtime-choice.js";
import { AppError } from "../../runtime/errors/app-error.js";
import { EventLog } from "../../runtime/events/event-log.js";
import { InMemoryStateStore } from "../../runtime/testing/in-memory-store.js";
import { ManualClock } from "../../runtime/testing/manual-clock.js";
import { createWorkers } from "../../runtime/workers/create-workers.js";
import type { Workers } from "../../runtime/workers/workers.js";

/** The engine a lifecycle suite runs against. */
export interface LifecycleEngine {
  readonly driver: ContainerDriver;
  /** An image the engine has, that workers run. */
  readonly image: string;
}

/** Plain git as the user runs it in their repository or reads a workspace (any owner). */
function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "safe.directory=*", ...args], {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Test",
      GIT_AUTHOR_EMAIL: "test@example.invalid",
      GIT_COMMITTER_NAME: "Test",
      GIT_COMMITTER_EMAIL: "test@example.invalid",
    },
  }).trim();
}

const exists = (target: string) =>
  stat(target).then(
    () => true,
    () => false,
  );

/** What one test works with: the workers over a fresh data dir and repository, on the engine. */
interface Harness {
  readonly workers: Workers;
  readonly driver: ContainerDriver;
  readonly store: InMemoryStateStore;
  readonly events: EventLog;
  readonly clock: ManualClock;
  readonly dataDir: string;
  readonly repo: string;
  readonly instance: string;
  /** The same store, engine and data dir under a new set of workers, as after a restart. */
  restart(): Promise<Workers>;
}

/**
 * The lifecycle of workers (create, stop, start, remove, a lost container, a failed creation,
 * names, a restart), written once and run against any ContainerDriver: the in-memory one in
 * unit tests and Docker in integration tests. Each test gets its own data dir, repository
 * and container label, and removes every container it made.
 */
export function describeWorkerLifecycle(name: string, makeEngine: () => Promise<LifecycleEngine>): void {
  describe(`worker lifecycle on ${name}`, () => {
    let harness: Harness;
    let root: string;

    beforeEach(async () => {
      const engine = await makeEngine();
      root = await realpath(await mkdtemp(path.join(tmpdir(), "workcell-lifecycle-")));
      const repo = path.join(root, "repo");
      await mkdir(path.join(repo, "src"), { recursive: true });
      await writeFile(path.join(repo, "README.md"), "# demo\n");
      await writeFile(path.join(repo, "src", "math.ts"), "export const add = (a: number, b: number) => a + b;\n");
      git(repo, "init", "--quiet", "--initial-branch=main");
      git(repo, "add", ".");
      git(repo, "commit", "--quiet", "-m", "initial");
      const dataDir = path.join(root, "data");
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      const store = new InMemoryStateStore();
      const events = await EventLog.open(dataDir, () => []);
      const clock = new ManualClock();
      const instance = `lifecycle-${randomBytes(6).toString("hex")}`;
      const hostUid = process.getuid?.() ?? 1000;
      const user = sandboxUser(hostUid, process.getgid?.() ?? 1000);
      const runtimes = catalogOf(await engine.driver.info());
      const build = () =>
        createWorkers({
          config: { dataDir, runtime: undefined },
          store,
          driver: engine.driver,
          defaultImage: engine.image,
          instance,
          sandboxUser: user,
          hostCpus: 2,
          chownWorkspaces: user.uid !== hostUid,
          hostEnv: {},
          runtimes,
          events,
          clock,
        });
      harness = {
        workers: build(),
        driver: engine.driver,
        store,
        events,
        clock,
        dataDir,
        repo,
        instance,
        restart: async () => build(),
      };
    });

    afterEach(async () => {
      await harness.workers.lifecycle.close();
      for (const container of await harness.driver.list({ [LABEL_INSTANCE]: harness.instance }))
        await harness.driver.remove(container.id);
      await rm(root, { recursive: true, force: true });
    });

    it("creates a running worker on its own branch at the repository's HEAD, stored and recorded", async () => {
      const { workers, driver, repo, clock } = harness;
      const worker = await workers.lifecycle.create({ repo });
      expect(worker.status).toBe("running");
      expect(worker.createdAt).toBe(isoNow(clock));
      const container = await driver.inspect(worker.containerId ?? "");
      expect(container?.running).toBe(true);
      expect(container?.labels[LABEL_INSTANCE]).toBe(harness.instance);
      expect(git(worker.workspace, "rev-parse", "--abbrev-ref", "HEAD")).toBe(worker.branch);
      expect(git(worker.workspace, "rev-parse", "HEAD")).toBe(git(repo, "rev-parse", "HEAD"));
      expect(await readFile(path.join(worker.workspace, "src", "math.ts"), "utf8")).toContain("add");
      expect((await workers.lookup.list()).map((listed) => listed.id)).toEqual([worker.id]);
      expect((await harness.events.list(worker.id)).map((event) => event.type)).toContain("created");
    });

    it("stops a worker without touching its workspace, and starts the same worker again", async () => {
      const { workers, driver, clock } = harness;
      const worker = await workers.lifecycle.create({ repo: harness.repo });
      await writeFile(path.join(worker.workspace, "notes.txt"), "unsaved work\n");
      const stopped = await workers.lifecycle.stop(worker.id);
      expect(stopped.status).toBe("stopped");
      expect((await driver.inspect(worker.containerId ?? ""))?.running).toBe(false);
      expect((await workers.lookup.get(worker.id)).status).toBe("stopped");
      clock.advance(60_000);
      const started = await workers.lifecycle.start(worker.id);
      expect(started.status).toBe("running");
      expect(started.startedAt).toBe(isoNow(clock));
      expect((await driver.inspect(started.containerId ?? ""))?.running).toBe(true);
      expect(await readFile(path.join(worker.workspace, "notes.txt"), "utf8")).toBe("unsaved work\n");
      const types = (await harness.events.list(worker.id)).map((event) => event.type);
      expect(types.indexOf("stopped")).toBeLessThan(types.indexOf("started"));
    });

    it("removes the container, the workspace and the record but keeps the event log, or keeps the files when asked", async () => {
      const { workers, driver } = harness;
      const gone = await workers.lifecycle.create({ repo: harness.repo });
      const kept = await workers.lifecycle.create({ repo: harness.repo });
      expect(await workers.lifecycle.remove(gone.id, { keepWorkspace: false })).toEqual({
        id: gone.id,
        status: "removed",
      });
      expect(await driver.inspect(gone.containerId ?? "")).toBeUndefined();
      expect(await exists(gone.workspace)).toBe(false);
      expect(await harness.store.getWorker(gone.id)).toBeUndefined();
      await expect(workers.lookup.get(gone.id)).rejects.toMatchObject({ code: "not_found" });
      expect((await harness.events.list(gone.id)).map((event) => event.type)).toContain("removed");
      expect(await workers.lifecycle.remove(kept.id, { keepWorkspace: true })).toEqual({
        id: kept.id,
        status: "removed",
        workspace: kept.workspace,
      });
      expect(await readFile(path.join(kept.workspace, "README.md"), "utf8")).toBe("# demo\n");
      expect(await workers.lookup.list()).toEqual([]);
    });

    it("reports a worker whose container was removed behind its back as failed, and start recreates it on the same workspace", async () => {
      const { workers, driver } = harness;
      const worker = await workers.lifecycle.create({ repo: harness.repo });
      await writeFile(path.join(worker.workspace, "notes.txt"), "kept\n");
      await driver.remove(worker.containerId ?? "");
      const failed = await workers.lookup.get(worker.id);
      expect(failed.status).toBe("failed");
      expect(failed.error).toMatch(/no longer exists/);
      const started = await workers.lifecycle.start(worker.id);
      expect(started.status).toBe("running");
      expect(started.containerId).not.toBe(worker.containerId);
      expect((await driver.inspect(started.containerId ?? ""))?.running).toBe(true);
      expect(await readFile(path.join(worker.workspace, "notes.txt"), "utf8")).toBe("kept\n");
    });

    it("leaves nothing behind when a creation is refused: no record, no directory, no container", async () => {
      const { workers, driver, dataDir } = harness;
      const missingImage = `workcell-missing-${randomBytes(4).toString("hex")}:none`;
      await expect(workers.lifecycle.create({ repo: harness.repo, image: missingImage })).rejects.toMatchObject({
        code: "invalid_input",
        details: { field: "image" },
      });
      await expect(workers.lifecycle.create({ repo: path.join(harness.repo, "src") })).rejects.toBeInstanceOf(AppError);
      expect(await harness.store.listWorkers()).toEqual([]);
      expect(await readdir(path.join(dataDir, "workers")).catch(() => [])).toEqual([]);
      expect(await driver.list({ [LABEL_INSTANCE]: harness.instance })).toEqual([]);
    });

    it("gives a name to one worker only: a second creation with it is refused and makes nothing", async () => {
      const { workers } = harness;
      const first = await workers.lifecycle.create({ repo: harness.repo, name: "reviewer" });
      await expect(workers.lifecycle.create({ repo: harness.repo, name: "reviewer" })).rejects.toMatchObject({
        code: "conflict",
        details: { field: "name", worker: first.id },
      });
      expect((await workers.lookup.list()).map((worker) => worker.id)).toEqual([first.id]);
      expect((await workers.lookup.resolve("reviewer")).id).toBe(first.id);
    });

    it("refuses to run anything in a stopped worker, naming the action that starts it", async () => {
      const { workers } = harness;
      const worker = await workers.lifecycle.create({ repo: harness.repo });
      await workers.lifecycle.stop(worker.id);
      await expect(workers.sessions.exec(worker.id, { command: ["true"] })).rejects.toMatchObject({
        code: "conflict",
        details: { status: "stopped", action: "start_worker", worker: worker.id },
      });
    });

    it("stops a worker over a limit with the reason on the worker and in its events", async () => {
      const { workers, driver } = harness;
      const worker = await workers.lifecycle.create({ repo: harness.repo });
      await workers.lifecycle.stopForLimit(worker.id, "memory over its limit");
      const stopped = await workers.lookup.get(worker.id);
      expect(stopped).toMatchObject({ status: "stopped", stopReason: "memory over its limit" });
      expect((await driver.inspect(worker.containerId ?? ""))?.running).toBe(false);
      expect(await harness.events.list(worker.id)).toContainEqual(
        expect.objectContaining({ type: "stopped_by_limit", reason: "memory over its limit" }),
      );
    });

    it("adopts running workers after a restart, and reports one whose container went away meanwhile", async () => {
      const { workers, driver } = harness;
      const running = await workers.lifecycle.create({ repo: harness.repo });
      const lost = await workers.lifecycle.create({ repo: harness.repo });
      await workers.lifecycle.close();
      await driver.remove(lost.containerId ?? "");
      const restarted = await harness.restart();
      await restarted.lifecycle.reconcile();
      expect((await restarted.lookup.get(running.id)).status).toBe("running");
      expect(await restarted.lookup.get(lost.id)).toMatchObject({
        status: "failed",
        error: expect.stringMatching(/no longer exists/),
      });
      expect((await restarted.lifecycle.start(lost.id)).status).toBe("running");
      await restarted.lifecycle.close();
    });
  });
}
