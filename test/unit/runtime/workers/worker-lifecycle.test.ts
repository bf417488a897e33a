import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LABEL_INSTANCE } from "../../../../runtime/docker/container-spec.js";
import { InMemoryContainerDriver } from "../../../../runtime/testing/in-memory-driver.js";
import { describeWorkerLifecycle } from "../../../conformance/worker-lifecycle-conformance.js";
import { createFakeWorkers, FAKE_IMAGE, type FakeWorkers } from "./fake-workers.js";

describeWorkerLifecycle("the in-memory driver", async () => ({
  driver: new InMemoryContainerDriver({ images: [FAKE_IMAGE] }),
  image: FAKE_IMAGE,
}));

// What only a fake engine can do: fail on cue.
describe("worker lifecycle when the engine fails", () => {
  const made: FakeWorkers[] = [];
  afterEach(async () => {
    for (const fake of made.splice(0)) await fake.cleanUp();
  });

  async function setUp(): Promise<FakeWorkers> {
    const fake = await createFakeWorkers();
    made.push(fake);
    return fake;
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
