import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { EngineInfo } from "../../../../runtime/docker/container-driver.js";
import { catalogOf } from "../../../../runtime/docker/runtime-choice.js";
import { EventLog } from "../../../../runtime/events/event-log.js";
import { InMemoryContainerDriver } from "../../../../runtime/testing/in-memory-driver.js";
import { InMemoryStateStore } from "../../../../runtime/testing/in-memory-store.js";
import { ManualClock } from "../../../../runtime/testing/manual-clock.js";
import { createWorkers } from "../../../../runtime/workers/create-workers.js";
import type { Workers } from "../../../../runtime/workers/workers.js";
import { WorkerIds } from "../../../../runtime/workers/worker-ids.js";
import { WorkerPool } from "../../../../runtime/workers/worker-pool.js";
import { WorkerPools } from "../../../../runtime/workers/worker-pools.js";

/** The image the fake engine has, that fake workers run. */
export const FAKE_IMAGE = "workcell-sandbox:in-memory";

/** Workers as the control plane builds them, on the in-memory engine and store, over a fresh data dir and repository. */
export interface FakeWorkers {
  readonly workers: Workers;
  readonly driver: InMemoryContainerDriver;
  readonly store: InMemoryStateStore;
  readonly events: EventLog;
  readonly clock: ManualClock;
  readonly instance: string;
  readonly dataDir: string;
  /** A git repository with one commit, to create workers from. */
  readonly repo: string;
  /** The warm pools, when `repoPoolSize` asked for a pool of `repo` (not filled until started). */
  readonly pools: WorkerPools | undefined;
  /** Removes the data dir and the repository. */
  cleanUp(): Promise<void>;
}

/**
 * Builds workers on the fakes; `engine` overrides what the fake engine reports, and
 * `repoPoolSize` gives them a repository pool of the repository (runc, no standby servers).
 */
export async function createFakeWorkers(
  engine: Partial<EngineInfo> = {},
  options: { repoPoolSize?: number } = {},
): Promise<FakeWorkers> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), "workcell-fake-workers-")));
  const repo = path.join(root, "repo");
  await mkdir(repo);
  await writeFile(path.join(repo, "README.md"), "# demo\n");
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "T",
    GIT_AUTHOR_EMAIL: "t@example.invalid",
    GIT_COMMITTER_NAME: "T",
    GIT_COMMITTER_EMAIL: "t@example.invalid",
  };
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["add", "."],
    ["commit", "-qm", "initial"],
  ]) {
    execFileSync("git", args, { cwd: repo, env });
  }
  const dataDir = path.join(root, "data");
  const driver = new InMemoryContainerDriver({ images: [FAKE_IMAGE], info: engine });
  const store = new InMemoryStateStore();
  const events = await EventLog.open(dataDir, () => []);
  const clock = new ManualClock();
  const instance = randomBytes(6).toString("hex");
  const ids = new WorkerIds(store);
  const pools =
    options.repoPoolSize === undefined
      ? undefined
      : new WorkerPools(
          (size, poolRepo) =>
            new WorkerPool({
              size,
              ...(poolRepo === undefined ? {} : { repo: poolRepo }),
              driver,
              dataDir,
              instance,
              image: FAKE_IMAGE,
              runtime: "runc",
              user: { uid: 1000, gid: 1000 },
              hostCpus: 2,
              log: () => undefined,
              ids,
            }),
          "runc",
          { emptySize: 0, repos: [{ repo, size: options.repoPoolSize }] },
        );
  const workers = createWorkers({
    config: { dataDir, runtime: undefined },
    store,
    driver,
    defaultImage: FAKE_IMAGE,
    instance,
    sandboxUser: { uid: 1000, gid: 1000 },
    hostCpus: 2,
    chownWorkspaces: false,
    hostEnv: {},
    runtimes: catalogOf(await driver.info()),
    events,
    clock,
    ids,
    ...(pools === undefined ? {} : { pools }),
  });
  return {
    workers,
    driver,
    store,
    events,
    clock,
    instance,
    dataDir,
    repo,
    pools,
    cleanUp: () => rm(root, { recursive: true, force: true }),
  };
}
