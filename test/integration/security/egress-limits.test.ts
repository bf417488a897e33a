import { readdir } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { startLoopbackServer, type LoopbackServer } from "../helpers/loopback-server.js";
import { createTempDir, createTestRepo } from "../helpers/test-repo.js";

/** The proxy's default per-worker cap (DEFAULT_MAX_CONNECTIONS_PER_WORKER), spelled out so the test also runs against code without it. */
const DEFAULT_MAX_CONNECTIONS_PER_WORKER = 256;

/** Connections the worker tries to hold open at once: well past the per-worker cap. */
const ATTEMPTS = DEFAULT_MAX_CONNECTIONS_PER_WORKER + 300;

/**
 * Opens ATTEMPTS CONNECT tunnels through the in-container forwarder, keeps every one open,
 * writes the status counts to /tmp/tunnels.json, and holds the sockets until /tmp/release exists
 * (at most 60 s).
 */
const HOLD_TUNNELS = (authority: string) =>
  [
    "import json, os, socket, time",
    "counts = {}",
    "held = []",
    `for i in range(${ATTEMPTS}):`,
    "    s = socket.create_connection(('127.0.0.1', 3128), timeout=20)",
    `    s.sendall(b'CONNECT ${authority} HTTP/1.1\\r\\nHost: ${authority}\\r\\n\\r\\n')`,
    "    data = b''",
    "    while b'\\r\\n\\r\\n' not in data:",
    "        chunk = s.recv(4096)",
    "        if not chunk: break",
    "        data += chunk",
    "    status = data.split(b' ')[1].decode() if data else 'closed'",
    "    counts[status] = counts.get(status, 0) + 1",
    "    held.append(s)",
    "json.dump(counts, open('/tmp/tunnels.tmp', 'w')); os.rename('/tmp/tunnels.tmp', '/tmp/tunnels.json')",
    "for _ in range(600):",
    "    if os.path.exists('/tmp/release'): break",
    "    time.sleep(0.1)",
    "print(json.dumps(counts))",
  ].join("\n");

const openDescriptors = async () => (await readdir("/proc/self/fd")).length;

describe.each(["runc", "runsc"])("egress proxy limits under %s", (runtime) => {
  let test: TestPlane;
  let repo: string;
  let loopback: LoopbackServer;
  const spawned: string[] = [];

  beforeAll(async () => {
    test = await startTestPlane(undefined, { runtime });
    repo = await createTestRepo(await createTempDir("workcell-egress-limits-"));
    loopback = await startLoopbackServer("limits");
  });

  afterAll(async () => {
    await stopTestPlane(test);
    await removeContainersOf(spawned);
    await loopback.close();
  });

  const spawn = async (permissions: Record<string, unknown>): Promise<ApiWorker> => {
    const worker = await spawnOn(test, repo, { permissions });
    spawned.push(worker.id);
    return worker;
  };
  const exec = (worker: ApiWorker, command: string | string[]) =>
    test.api<{ exitCode: number | null; stdout: string; stderr: string }>("POST", `/v1/workers/${worker.id}/exec`, {
      command,
      timeoutMs: 60_000,
    });

  it("refuses tunnels past the per-worker cap with 429, keeps the control plane's descriptors bounded, and frees slots when tunnels close", async () => {
    const worker = await spawn({ net: [`127.0.0.1:${loopback.port}`] });
    const before = await openDescriptors();
    const script = HOLD_TUNNELS(`127.0.0.1:${loopback.port}`);
    // The holder runs inside one exec call, which returns once /tmp/release exists.
    let holderDone = false;
    const holder = exec(worker, ["python3", "-c", script]).finally(() => {
      holderDone = true;
    });
    let counts: Record<string, number> | undefined;
    for (let attempt = 0; attempt < 600 && counts === undefined && !holderDone; attempt += 1) {
      const read = await exec(worker, "cat /tmp/tunnels.json 2>/dev/null || true");
      if (read.body.stdout !== "") counts = JSON.parse(read.body.stdout) as Record<string, number>;
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const during = await openDescriptors();
    await exec(worker, "touch /tmp/release");
    const held = await holder;
    expect(held.body.exitCode, held.body.stderr).toBe(0);
    expect(counts).toEqual({
      "200": DEFAULT_MAX_CONNECTIONS_PER_WORKER,
      "429": ATTEMPTS - DEFAULT_MAX_CONNECTIONS_PER_WORKER,
    });
    // Each admitted tunnel holds the proxy's client socket, its upstream socket and the loopback server's accepted socket.
    expect(during - before).toBeLessThanOrEqual(3 * DEFAULT_MAX_CONNECTIONS_PER_WORKER + 64);

    let again = "";
    for (let attempt = 0; attempt < 100 && again !== "200"; attempt += 1) {
      again = (
        await exec(
          worker,
          `curl -s -o /dev/null -w '%{http_connect}' --proxytunnel -x http://127.0.0.1:3128 http://127.0.0.1:${loopback.port}/ || true`,
        )
      ).body.stdout;
      if (again !== "200") await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(again).toBe("200");
  }, 300_000);

  it("refuses IPv4-mapped, hex and short forms of a loopback address that is not granted, before connecting", async () => {
    const worker = await spawn({ net: [`example.invalid:${loopback.port}`], deny: { net: ["127.0.0.1"] } });
    const hitsBefore = loopback.hits;
    for (const form of [`[::ffff:127.0.0.1]`, `[::ffff:7f00:1]`, `0x7f.1`, `2130706433`, `127.1`]) {
      const answer = await exec(
        worker,
        `curl -s -o /dev/null -w '%{http_connect}' --proxytunnel -x http://127.0.0.1:3128 'http://${form}:${loopback.port}/' || true`,
      );
      expect([form, answer.body.stdout]).toEqual([form, "403"]);
    }
    expect(loopback.hits).toBe(hitsBefore);
  });
});
