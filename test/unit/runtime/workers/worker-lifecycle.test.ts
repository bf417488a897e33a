import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LABEL_INSTANCE } from "../../../../runtime/docker/container-spec.js";
import { catalogOf } from "../../../../runtime/docker/runtime-choice.js";
import { EventLog } from "../../../../runtime/events/event-log.js";
import { InMemoryContainerDriver } from "../../../../runtime/testing/in-memory-driver.js";
import { InMemoryStateStore } from "../../../../runtime/testing/in-memory-store.js";
import { ManualClock } from "../../../../runtime/testing/manual-clock.js";
import { createWorkers } from "../../../../runtime/workers/create-workers.js";
import { describeWorkerLifecycle } from "../../../conformance/worker-lifecycle-conformance.js";

const IMAGE = "workcell-sandbox:in-memory";

describeWorkerLifecycle("the in-memory driver", async () => ({
  driver: new InMemoryContainerDriver({ images: [IMAGE] }),
  image: IMAGE,
}));

// What only a fake engine can do: fail on cue.
describe("worker lifecycle when the engine fails", () => {
  const roots: string[] = [];
  afterEach(async () => {
    for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
  });

  async function setUp() {
    const root = await realpath(await mkdtemp(path.join(tmpdir(), "workcell-lifecycle-fail-")));
    roots.push(root);
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
    ])
      execFileSync("git", args, { cwd: repo, env });
    const dataDir = path.join(root, "data");
    const driver = new InMemoryContainerDriver({ images: [IMAGE] });
    const store = new InMemoryStateStore();
    const instance = randomBytes(6).toString("hex");
    const workers = createWorkers({
      config: { dataDir, runtime: undefined },
      store,
      driver,
      defaultImage: IMAGE,
      instance,
      sandboxUser: { uid: 1000, gid: 1000 },
      hostCpus: 2,
      chownWorkspaces: false,
      hostEnv: {},
      runtimes: catalogOf(await driver.info()),
      events: await EventLog.open(dataDir, () => []),
      clock: new ManualClock(),
    });
    return { repo, dataDir, driver, store, instance, workers };
  }

  it("leaves no record, directory or container when the engine cannot start the container", async () => {
    const { repo, dataDir, driver, store, instance, workers } = await setUp();
    driver.failNext("start");
    await expect(workers.lifecycle.create({ repo })).rejects.toThrow(/injected failure of start/);
    expect(await store.listWorkers()).toEqual([]);
    expect(await readdir(path.join(dataDir, "workers")).catch(() => [])).toEqual([]);
    expect(await driver.list({ [LABEL_INSTANCE]: instance })).toEqual([]);
  });

  it("keeps a worker stopped and its workspace whole when the engine fails to start it again", async () => {
    const { repo, driver, workers } = await setUp();
    const worker = await workers.lifecycle.create({ repo });
    await workers.lifecycle.stop(worker.id);
    driver.failNext("start");
    await expect(workers.lifecycle.start(worker.id)).rejects.toThrow(/injected failure of start/);
    expect((await workers.lookup.get(worker.id)).status).toBe("stopped");
    expect(await readdir(worker.workspace)).toContain("README.md");
    expect((await workers.lifecycle.start(worker.id)).status).toBe("running");
  });
});
