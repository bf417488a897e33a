import { stat } from "node:fs/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  docker,
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { startLoopbackServer, type LoopbackServer } from "../helpers/loopback-server.js";
import { createTempDir, createTestRepo } from "../helpers/test-repo.js";

let test: TestPlane;
let repo: string;
let victim: ApiWorker;
let bystander: ApiWorker;
let client: Client;
let transport: StreamableHTTPClientTransport;
let loopback: LoopbackServer;
const spawned: string[] = [];

beforeAll(async () => {
  test = await startTestPlane();
  repo = await createTestRepo(await createTempDir("workcell-exhaust-"));
  victim = await spawnOn(test, repo, { resources: { pids: 128, memoryMb: 256, tmpMb: 64 } });
  bystander = await spawnOn(test, repo);
  spawned.push(victim.id, bystander.id);
  ({ client, transport } = await test.connect(victim.mcpUrl));
  loopback = await startLoopbackServer("host");
});

afterAll(async () => {
  await client?.close();
  await stopTestPlane(test);
  await removeContainersOf(spawned);
  await loopback.close();
});

const exec = (worker: ApiWorker, command: string, timeoutMs = 60_000) =>
  test.api<{ exitCode: number | null; stdout: string; stderr: string; truncated: boolean; timedOut: boolean }>(
    "POST",
    `/v1/workers/${worker.id}/exec`,
    { command, timeoutMs },
  );
// The client waits past the command's own timeout, so the tool's answer (capped, or timed out) is what is checked.
const shell = async (command: string, timeoutMs = 60_000) =>
  (
    await client.callTool({ name: "shell", arguments: { command, timeoutMs } }, undefined, {
      timeout: timeoutMs + 60_000,
    })
  ).structuredContent as {
    exitCode: number | null;
    stdout: string;
    stderr: string;
    truncated: boolean;
  };

/** Round trip of a light MCP call (read_file) on the bystander worker while `attack` runs in the victim. */
async function bystanderLatencyDuring(attack: Promise<unknown>): Promise<number> {
  const { client: light } = await test.connect(bystander.mcpUrl);
  const samples: number[] = [];
  let done = false;
  const finished = attack.finally(() => {
    done = true;
  });
  while (!done) {
    const started = performance.now();
    const answer = await light.callTool({ name: "read_file", arguments: { path: "README.md" } });
    expect(answer.isError).toBeFalsy();
    samples.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await finished;
  await light.close();
  return Math.max(...samples);
}

describe("resource exhaustion", () => {
  it("a fork bomb and a memory bomb in one worker leave the control plane and other workers answering", async () => {
    const worst = await bystanderLatencyDuring(
      Promise.all([
        exec(victim, "bomb() { bomb | bomb & }; bomb", 6_000),
        exec(victim, "python3 -c 'x = bytearray(1024 * 1024 * 1024)'", 20_000),
      ]),
    );
    expect(worst).toBeLessThan(5_000);
    if (victim.runtime === "runsc") {
      // Under gVisor the PID and memory limits hold for the sandbox as a whole (its kernel
      // included), so the bombs may end it, now or once leftover forks pile up: the damage
      // stays in the victim, which is restarted clean before the next probes.
      expect(["running", "failed"]).toContain(
        (await test.api<ApiWorker>("GET", `/v1/workers/${victim.id}`)).body.status,
      );
      await test.api("POST", `/v1/workers/${victim.id}/stop`);
      expect((await test.api("POST", `/v1/workers/${victim.id}/start`)).status).toBe(200);
      await client.close().catch(() => undefined);
      ({ client, transport } = await test.connect(victim.mcpUrl));
    }
    await expect
      .poll(async () => (await exec(victim, "echo recovered")).body.stdout, { timeout: 20_000, interval: 500 })
      .toBe("recovered\n");
  });

  it("filling /tmp hits the tmpfs cap, not the host", async () => {
    const fill = await exec(victim, "head -c 200000000 /dev/zero > /tmp/fill; echo exit=$?; df -m /tmp | tail -1");
    expect(fill.body.stdout).toMatch(/exit=1/);
    expect(fill.body.stderr).toMatch(/No space left on device/);
    await exec(victim, "rm -f /tmp/fill");
  });

  it("1 GB written to stdout stays capped in the answers of exec and shell, and in the control plane's memory and the container's logs", async () => {
    const rssBefore = process.memoryUsage().rss;
    const viaExec = await exec(victim, "head -c 1000000000 /dev/zero | tr '\\\\0' x");
    expect(viaExec.body.truncated).toBe(true);
    expect(viaExec.body.stdout.length).toBeLessThan(110_000);
    const viaShell = await shell("head -c 1000000000 /dev/zero | tr '\\\\0' y");
    expect(viaShell.truncated).toBe(true);
    expect(viaShell.stdout.length).toBeLessThan(10_200);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(300 * 1024 * 1024);
    const logPath = (await docker.getContainer(victim.containerId).inspect()).LogPath;
    const logSize = await stat(logPath).then(
      (s) => s.size,
      () => 0,
    );
    expect(logSize).toBeLessThanOrEqual(1024 * 1024);
  }, 180_000);

  it("a background process left by a tool call is gone after the call, after a stop, and after a control-plane restart, with no zombies", async () => {
    await shell("sleep 7001 >/dev/null 2>&1 &");
    const count = async () => (await exec(victim, "ps -eo args | grep -c '^sleep 700[12]' || true")).body.stdout.trim();
    expect(await count()).toBe("0");
    await client.callTool({ name: "start_process", arguments: { command: "sleep 7002" } });
    expect(await count()).toBe("1");
    // Ending the MCP session ends its in-container server and the processes it started.
    await transport.terminateSession();
    await client.close();
    await expect.poll(count, { timeout: 5_000 }).toBe("0");

    ({ client, transport } = await test.connect(victim.mcpUrl));
    await client.callTool({ name: "start_process", arguments: { command: "sleep 7002" } });
    await test.api("POST", `/v1/workers/${victim.id}/stop`);
    await test.api("POST", `/v1/workers/${victim.id}/start`);
    expect(await count()).toBe("0");

    ({ client, transport } = await test.connect(victim.mcpUrl));
    await client.callTool({ name: "start_process", arguments: { command: "sleep 7002" } });
    await test.plane.close();
    test = await startTestPlane(test.dataDir);
    await expect.poll(count, { timeout: 5_000 }).toBe("0");
    expect((await exec(victim, "ps -eo stat | grep -c '^Z' || true")).body.stdout.trim()).toBe("0");
    ({ client, transport } = await test.connect(victim.mcpUrl.replace(/^http:\/\/[^/]+/, test.plane.url)));
  });
});

describe("network isolation without net", () => {
  it("has no interface but loopback and no route", async () => {
    expect((await exec(victim, "ls /sys/class/net")).body.stdout.trim().split("\n")).toEqual(["lo"]);
    const routes = (
      await exec(
        victim,
        "tail -n +2 /proc/net/route; tail -n +2 /proc/net/ipv6_route 2>/dev/null | grep -v ' lo$' || true",
      )
    ).body.stdout.trim();
    expect(routes).toBe("");
  });

  it("cannot reach the control plane's port or a server the test started on the host's loopback", async () => {
    const controlPort = new URL(test.plane.url).port;
    const probe = (port: string | number) =>
      exec(victim, `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo reachable || echo unreachable`);
    expect((await probe(controlPort)).body.stdout).toBe("unreachable\n");
    expect((await probe(loopback.port)).body.stdout).toBe("unreachable\n");
    expect(loopback.hits).toBe(0);
  });
});
