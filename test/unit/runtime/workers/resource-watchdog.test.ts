import { afterEach, describe, expect, it } from "vitest";
import { ResourceWatchdog } from "../../../../runtime/workers/resource-watchdog.js";
import { createFakeWorkers, type FakeWorkers } from "./fake-workers.js";

describe("the resource watchdog", () => {
  const made: FakeWorkers[] = [];
  afterEach(async () => {
    for (const fake of made.splice(0)) await fake.cleanUp();
  });

  async function setUp() {
    const fake = await createFakeWorkers();
    made.push(fake);
    const logged: string[] = [];
    const watchdog = new ResourceWatchdog(fake.workers, 60_000, (line) => logged.push(line), undefined, fake.clock);
    return { ...fake, watchdog, logged };
  }

  it("stops a worker idle past idleTimeoutMs, with the reason, and not a moment before", async () => {
    const { workers, clock, watchdog, logged, repo } = await setUp();
    const worker = await workers.lifecycle.create({
      repo,
      resources: { idleTimeoutMs: 60_000 },
    });
    clock.advance(40_000);
    workers.activity.touch(worker.id);
    clock.advance(59_000);
    await watchdog.check();
    expect((await workers.lookup.get(worker.id)).status).toBe("running");
    clock.advance(2_000);
    await watchdog.check();
    expect(await workers.lookup.get(worker.id)).toMatchObject({
      status: "stopped",
      stopReason: expect.stringMatching(/No tool call or exec for 60000 ms/),
    });
    expect(logged).toEqual([]);
  });

  it("stops a worker at its lifetime limit however busy it is, and leaves one without limits alone", async () => {
    const { workers, clock, watchdog, repo } = await setUp();
    const limited = await workers.lifecycle.create({ repo, resources: { timeoutMs: 5_000 } });
    const unlimited = await workers.lifecycle.create({ repo });
    for (let second = 0; second < 6; second += 1) {
      clock.advance(1_000);
      workers.activity.touch(limited.id);
    }
    await watchdog.check();
    expect(await workers.lookup.get(limited.id)).toMatchObject({
      status: "stopped",
      stopReason: expect.stringMatching(/lifetime limit of 5000 ms/),
    });
    expect((await workers.lookup.get(unlimited.id)).status).toBe("running");
  });
});
