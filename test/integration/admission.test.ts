import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, createTestRepo } from "./helpers/test-repo.js";

let test: TestPlane;
let first: ApiWorker;
let second: ApiWorker;

beforeAll(async () => {
  test = await startTestPlane(undefined, { heavyConcurrency: 1 });
  const repo = await createTestRepo(await createTempDir("workcell-admission-"));
  first = await spawnOn(test, repo);
  second = await spawnOn(test, repo);
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf([first.id, second.id]);
});

const exec = (worker: ApiWorker, command: string) =>
  test.api<{ exitCode: number; stdout: string }>("POST", `/v1/workers/${worker.id}/exec`, {
    command,
    timeoutMs: 30_000,
  });

describe("admission control for heavy work", () => {
  it("runs no more heavy commands at once than the limit, across workers", async () => {
    const started = performance.now();
    const stamps = await Promise.all(
      [first, second].map(async (worker) => {
        await exec(worker, "sleep 1");
        return performance.now() - started;
      }),
    );
    // With one slot the two one-second commands run one after the other.
    expect(Math.max(...stamps)).toBeGreaterThanOrEqual(1_900);
    expect(test.plane.admission.status()).toEqual({ running: 0, queued: 0, limit: 1 });
  });

  it("keeps light calls out of the queue and tells a queued heavy call its position", async () => {
    const { client } = await test.connect(second.mcpUrl);
    const holder = exec(first, "sleep 3");
    await expect.poll(() => test.plane.admission.status().running).toBe(1);
    const messages: string[] = [];
    const heavy = client.callTool(
      { name: "shell", arguments: { command: "echo heavy done", heavy: true } },
      undefined,
      { onprogress: (p) => messages.push(p.message ?? "") },
    );
    await expect.poll(() => test.plane.admission.status().queued).toBe(1);
    const lightStarted = performance.now();
    const light = await client.callTool({ name: "read_file", arguments: { path: "README.md" } });
    expect(light.isError).toBeFalsy();
    expect(performance.now() - lightStarted).toBeLessThan(1_000);
    expect(((await heavy).structuredContent as { stdout: string }).stdout).toBe("heavy done\n");
    expect(messages).toContain("queued for a build/test slot: position 1");
    await holder;
    await client.close();
  });
});
