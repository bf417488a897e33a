import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
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

/** Live (not zombie) processes in the container whose command line is `sleep <seconds>`. */
const LIVE_SLEEPERS = (seconds: number) =>
  `for s in /proc/[0-9]*/stat; do d=\${s%/stat}; [ "$(tr '\\0' ' ' < $d/cmdline 2>/dev/null)" = "sleep ${seconds} " ] && ! grep -q '^[0-9]* ([^)]*) Z' $s && echo \${d#/proc/}; done; true`;

describe.each(["runc", "runsc"])("processes that leave their call under %s", (runtime) => {
  let test: TestPlane;
  let worker: ApiWorker;
  let client: Client;
  const spawned: string[] = [];

  beforeAll(async () => {
    test = await startTestPlane(undefined, { runtime });
    const repo = await createTempDir("workcell-setsid-");
    worker = await spawnOn(test, await createTestRepo(repo));
    spawned.push(worker.id);
    ({ client } = await test.connect(worker.mcpUrl));
  });

  afterAll(async () => {
    await client?.close();
    await stopTestPlane(test);
    await removeContainersOf(spawned);
  });

  const exec = (command: string, timeoutMs = 30_000) =>
    test.api<{ exitCode: number | null; stdout: string; stderr: string; timedOut: boolean }>(
      "POST",
      `/v1/workers/${worker.id}/exec`,
      { command, timeoutMs },
    );
  const shell = async (command: string, timeoutMs = 30_000) =>
    (await client.callTool({ name: "shell", arguments: { command, timeoutMs } })).structuredContent as {
      exitCode: number | null;
      stdout: string;
      timedOut: boolean;
    };
  const liveSleepers = async (seconds: number) => (await exec(LIVE_SLEEPERS(seconds))).body.stdout.trim();

  it("a shell call's setsid and double-forked setsid children end with the call", async () => {
    const answer = await shell(
      "setsid sleep 311 >/dev/null 2>&1 & ( setsid sleep 311 >/dev/null 2>&1 & ) ; sleep 0.2; echo started",
    );
    expect(answer.stdout).toBe("started\n");
    expect(await liveSleepers(311)).toBe("");
  });

  it("a shell call that times out takes its setsid children with it", async () => {
    const answer = await shell(
      "setsid sleep 312 >/dev/null 2>&1 & ( setsid sleep 312 >/dev/null 2>&1 & ) ; sleep 60",
      1_500,
    );
    expect(answer.timedOut).toBe(true);
    expect(await liveSleepers(312)).toBe("");
  });

  it("a REST exec's setsid children end with it", async () => {
    const answer = await exec(
      "setsid sleep 313 >/dev/null 2>&1 & ( setsid sleep 313 >/dev/null 2>&1 & ) ; sleep 0.2; echo started",
    );
    expect(answer.body.stdout).toBe("started\n");
    expect(await liveSleepers(313)).toBe("");
  });

  it("a background process started with start_process keeps running after other calls end", async () => {
    const started = (await client.callTool({ name: "start_process", arguments: { command: "setsid sleep 314" } }))
      .structuredContent as { processId: string };
    await shell("true");
    expect(await liveSleepers(314)).not.toBe("");
    await client.callTool({ name: "kill_process", arguments: { processId: started.processId } });
  });
});
