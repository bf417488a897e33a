import { rm, stat } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DockerDriver } from "../../../runtime/docker/docker-driver.js";
import { AppError } from "../../../runtime/errors/app-error.js";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { createTempDir, createTestRepo } from "../helpers/test-repo.js";

/** How long the test lets a control-plane request take before it counts the plane as wedged. */
const RESPONSIVE_BOUND_MS = 45_000;
/** Per test: a spawn, a few execs and several bounded requests on a busy engine. */
const TEST_TIMEOUT_MS = 300_000;

/** A request that gives up after a bound: "aborted" means the control plane did not answer. */
async function boundedRequest(
  test: TestPlane,
  method: string,
  route: string,
): Promise<{ status: number; body: unknown } | "aborted"> {
  try {
    const response = await fetch(`${test.plane.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
      signal: AbortSignal.timeout(RESPONSIVE_BOUND_MS),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
  } catch (error) {
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return "aborted";
    throw error;
  }
}

/** Makes a directory chain about 6 KiB deep (PATH_MAX is 4 KiB) in the current directory. */
const DEEP_CHAIN_SCRIPT =
  'const fs = require("fs"); const d = "a".repeat(200); for (let i = 0; i < 30; i++) { fs.mkdirSync(d); process.chdir(d); } fs.writeFileSync("leaf.txt", "deep\\n"); console.log("made");';

async function execIn(
  test: TestPlane,
  id: string,
  command: string | string[],
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const response = await test.api<{ exitCode: number; stdout: string; stderr: string }>(
    "POST",
    `/v1/workers/${id}/exec`,
    { command },
  );
  expect(response.status).toBe(200);
  return response.body;
}

describe.each(["runc", "runsc"])("the control plane stays responsive (%s)", (runtime) => {
  let scratch: string;
  let repo: string;
  let test: TestPlane;
  const spawned: string[] = [];

  beforeAll(async () => {
    scratch = await createTempDir("workcell-wedge-");
    repo = await createTestRepo(scratch);
    test = await startTestPlane(undefined, { runtime });
  });

  afterAll(async () => {
    // Killing the containers first ends anything still stuck in them, so cleanup cannot hang.
    await removeContainersOf(spawned);
    await stopTestPlane(test).finally(() => rm(scratch, { recursive: true, force: true }));
  });

  it(
    "a FIFO at .git/objects/info/alternates does not wedge list, get, stop or remove behind an export",
    async () => {
      const worker = await spawnOn(test, repo);
      spawned.push(worker.id);
      const planted = await execIn(
        test,
        worker.id,
        "rm -f .git/objects/info/alternates.tmp && mv .git/objects/info/alternates .git/objects/info/alternates.tmp && mkfifo .git/objects/info/alternates && test -p .git/objects/info/alternates && echo planted",
      );
      expect(planted.stdout).toContain("planted");

      const exporting = test.api("POST", `/v1/workers/${worker.id}/export`, {}).then(
        (response) => response,
        (error: unknown) => ({ status: -1, body: String(error) }),
      );
      // Let the export reach the container and block on the FIFO.
      await new Promise((resolve) => setTimeout(resolve, 1500));

      const listed = await boundedRequest(test, "GET", "/v1/workers");
      expect(listed).not.toBe("aborted");
      expect(listed !== "aborted" && listed.status).toBe(200);
      expect(JSON.stringify(listed !== "aborted" && listed.body)).toContain(worker.id);

      const got = await boundedRequest(test, "GET", `/v1/workers/${worker.id}`);
      expect(got).not.toBe("aborted");
      expect(got !== "aborted" && got.status).toBe(200);

      const stopped = await boundedRequest(test, "POST", `/v1/workers/${worker.id}/stop`);
      expect(stopped).not.toBe("aborted");
      expect(stopped !== "aborted" && stopped.status).toBe(200);
      expect(stopped !== "aborted" && (stopped.body as ApiWorker).status).toBe("stopped");

      // The export ends with an error, not a hang and not a success.
      const exported = await exporting;
      expect(exported.status).toBeGreaterThanOrEqual(400);
      expect(JSON.stringify(exported.body)).toMatch(/interrupted|timed out|did not finish/);

      // Nothing the worker wrote is lost by the stop.
      expect((await stat(`${worker.workspace}/.git/objects/info/alternates.tmp`)).isFile()).toBe(true);

      const removed = await boundedRequest(test, "DELETE", `/v1/workers/${worker.id}`);
      expect(removed).not.toBe("aborted");
      expect(removed !== "aborted" && removed.status).toBe(200);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "DELETE removes a running worker stuck in an export",
    async () => {
      const worker = await spawnOn(test, repo);
      spawned.push(worker.id);
      await execIn(
        test,
        worker.id,
        "mv .git/objects/info/alternates .git/objects/info/alternates.tmp && mkfifo .git/objects/info/alternates",
      );
      const exporting = test
        .api("POST", `/v1/workers/${worker.id}/export`, {})
        .catch((error: unknown) => ({ status: -1, body: String(error) }));
      await new Promise((resolve) => setTimeout(resolve, 1500));

      const removed = await boundedRequest(test, "DELETE", `/v1/workers/${worker.id}`);
      expect(removed).not.toBe("aborted");
      expect(removed !== "aborted" && removed.status).toBe(200);
      expect((await exporting).status).toBeGreaterThanOrEqual(400);
      expect((await test.api("GET", `/v1/workers/${worker.id}`)).status).toBe(404);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "an exec past its deadline fails with timeout and its program is killed inside the container",
    async () => {
      const worker = await spawnOn(test, repo);
      spawned.push(worker.id);
      const driver = new DockerDriver();
      const outcome = await driver
        .exec(worker.containerId, { argv: ["sh", "-c", "sleep 600 & sleep 601"], timeoutMs: 1_000 })
        .then(
          () => "finished",
          (error: unknown) => (error instanceof AppError ? `${error.code}: ${error.message}` : String(error)),
        );
      expect(outcome).toMatch(/^timeout: .*did not finish within 1000 ms and was killed/);
      // Bounded wait for the kill to land: the process group of the timed-out program is gone.
      let left = "";
      for (let attempt = 0; attempt < 50; attempt += 1) {
        left = (await driver.exec(worker.containerId, { argv: ["ps", "-eo", "args"] })).stdout.toString("utf8");
        if (!left.includes("sleep 60")) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(left).not.toContain("sleep 60");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a directory chain deeper than PATH_MAX in the workspace does not stop DELETE",
    async () => {
      const worker = await spawnOn(test, repo);
      spawned.push(worker.id);
      // Walks down with chdir and relative names (bash's cd would call getcwd, which gVisor refuses that deep).
      const deep = await execIn(test, worker.id, ["node", "-e", DEEP_CHAIN_SCRIPT]);
      expect(deep.stdout).toContain("made");

      const removed = await boundedRequest(test, "DELETE", `/v1/workers/${worker.id}`);
      expect(removed).not.toBe("aborted");
      expect(removed !== "aborted" && removed.status).toBe(200);
      expect(
        await stat(worker.workspace).then(
          () => "present",
          (error: NodeJS.ErrnoException) => error.code,
        ),
      ).toBe("ENOENT");
      expect((await test.api("GET", `/v1/workers/${worker.id}`)).status).toBe(404);
    },
    TEST_TIMEOUT_MS,
  );
});
