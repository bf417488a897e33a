import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docker, type ApiWorker, type TestPlane } from "./helpers/control-plane.js";
import { startLoopbackServer, type LoopbackServer } from "./helpers/loopback-server.js";
import { startPolicyPlane, stopPolicyPlane, type PolicyPlane } from "./helpers/policy-plane.js";

// Network grants and audit mode, against two servers on the host's loopback;
// permissions.test.ts covers file, run and env grants and the policy's validation.
let plane: PolicyPlane | undefined;
let test: TestPlane;
let spawn: PolicyPlane["spawn"];
let exec: PolicyPlane["exec"];
let serverA: LoopbackServer;
let serverB: LoopbackServer;

beforeAll(async () => {
  plane = await startPolicyPlane("workcell-permissions-");
  ({ test, spawn, exec } = plane);
  serverA = await startLoopbackServer("A");
  serverB = await startLoopbackServer("B");
});

afterAll(async () => {
  await stopPolicyPlane(plane);
  await serverA.close();
  await serverB.close();
});

/** A python HTTP GET from inside the container; `direct` ignores the proxy variables. */
const fetchFrom = (worker: ApiWorker, url: string, direct = false) =>
  exec(worker, [
    "python3",
    "-c",
    [
      "import sys, urllib.request, urllib.error",
      `opener = urllib.request.build_opener(${direct ? "urllib.request.ProxyHandler({})" : ""})`,
      "try:",
      `    r = opener.open(${JSON.stringify(url)}, timeout=10); print('STATUS', r.status); print(r.read().decode())`,
      "except urllib.error.HTTPError as e:",
      "    print('STATUS', e.code); print(e.read().decode())",
      "except Exception as e:",
      "    print('FAILED', type(e).__name__, e)",
    ].join("\n"),
  ]);

const interfaces = async (worker: ApiWorker) =>
  (await exec(worker, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '")).body.stdout.trim().split("\n");

describe("network grants", () => {
  it("net: false — only loopback, and the host's loopback servers are out of reach", async () => {
    const worker = await spawn({ net: false });
    expect(await interfaces(worker)).toEqual(["lo"]);
    const attempt = await fetchFrom(worker, `http://127.0.0.1:${serverA.port}/`);
    expect(attempt.body.stdout).toMatch(/^FAILED/);
    expect(worker).toMatchObject({ network: "none" });
  });

  it("a host list — the granted server is reached through the proxy, others get the Deno-style 403, and bypassing the proxy fails", async () => {
    const worker = await spawn({ net: [`127.0.0.1:${serverA.port}`] });
    expect(worker).toMatchObject({ network: "proxied", permissions: { net: [`127.0.0.1:${serverA.port}`] } });
    expect(await interfaces(worker)).toEqual(["lo"]);
    const hitsBefore = serverA.hits;
    const allowed = await fetchFrom(worker, `http://127.0.0.1:${serverA.port}/granted`);
    expect(allowed.body.stdout).toBe("STATUS 200\nhello from A GET /granted\n");
    expect(serverA.hits).toBe(hitsBefore + 1);

    const refused = await fetchFrom(worker, `http://127.0.0.1:${serverB.port}/`);
    expect(refused.body.stdout).toBe(
      `STATUS 403\nPermissionDenied: net access to "127.0.0.1:${serverB.port}" is not granted; grant it with permissions.net (e.g. "net": ["127.0.0.1:${serverB.port}"])\n\n`,
    );

    const bypass = await fetchFrom(worker, `http://127.0.0.1:${serverA.port}/direct`, true);
    expect(bypass.body.stdout).toMatch(/^FAILED/);
    expect(serverA.hits).toBe(hitsBefore + 1);

    // CONNECT tunnels (what HTTPS uses) follow the same grant.
    const tunnel = await exec(worker, [
      "python3",
      "-c",
      `import http.client\nc = http.client.HTTPConnection("127.0.0.1", 3128, timeout=10)\nc.set_tunnel("127.0.0.1", ${serverA.port})\nc.request("GET", "/tunnel")\nprint(c.getresponse().read().decode())`,
    ]);
    expect(tunnel.body.stdout).toBe("hello from A GET /tunnel\n");
    const deniedTunnel = await exec(
      worker,
      "curl -s -o /dev/null -w '%{http_connect}' --proxytunnel -x http://127.0.0.1:3128 http://127.0.0.1:" +
        serverB.port +
        "/ || true",
    );
    expect(deniedTunnel.body.stdout).toBe("403");
  });

  it("a change to the net grant takes effect at once", async () => {
    const worker = await spawn({ net: [`127.0.0.1:${serverA.port}`] });
    const patched = await test.api<{ appliesOnNextStart: boolean }>("PATCH", `/v1/workers/${worker.id}/permissions`, {
      net: [`127.0.0.1:${serverB.port}`],
    });
    expect(patched.body.appliesOnNextStart).toBe(false);
    expect((await fetchFrom(worker, `http://127.0.0.1:${serverA.port}/`)).body.stdout).toMatch(/^STATUS 403/);
    expect((await fetchFrom(worker, `http://127.0.0.1:${serverB.port}/`)).body.stdout).toMatch(
      /^STATUS 200\nhello from B/,
    );
  });

  it("a grant that needs another container says so and applies on the next start", async () => {
    const worker = await spawn({ net: false });
    const patched = await test.api<{ appliesOnNextStart: boolean; message: string }>(
      "PATCH",
      `/v1/workers/${worker.id}/permissions`,
      { net: [`127.0.0.1:${serverA.port}`] },
    );
    expect(patched.body.appliesOnNextStart).toBe(true);
    expect(patched.body.message).toMatch(/next POST \/start/);
    expect((await test.api<{ pendingRestart?: boolean }>("GET", `/v1/workers/${worker.id}`)).body.pendingRestart).toBe(
      true,
    );
    expect((await fetchFrom(worker, `http://127.0.0.1:${serverA.port}/`)).body.stdout).toMatch(/^FAILED/);
    await test.api("POST", `/v1/workers/${worker.id}/stop`);
    const restarted = await test.api<ApiWorker & { pendingRestart?: boolean }>(
      "POST",
      `/v1/workers/${worker.id}/start`,
    );
    expect(restarted.body.pendingRestart).toBeUndefined();
    expect((await fetchFrom(restarted.body, `http://127.0.0.1:${serverA.port}/later`)).body.stdout).toBe(
      "STATUS 200\nhello from A GET /later\n",
    );
  });

  it("net: true is an ordinary bridged network, flagged on the worker (no traffic sent)", async () => {
    const worker = await spawn({ net: true });
    expect(worker).toMatchObject({ network: "bridged" });
    expect((await docker.getContainer(worker.containerId).inspect()).HostConfig.NetworkMode).toBe("bridge");
  });
});

describe("audit mode", () => {
  it("allows and records what enforce would refuse, suggests the minimal policy, and that policy passes the same run in enforce mode", async () => {
    const run = (worker: ApiWorker) =>
      exec(worker, `git status --short >/dev/null && curl -s http://127.0.0.1:${serverA.port}/audited`);
    const audited = await spawn({ mode: "audit", run: ["git"] });
    const first = await run(audited);
    expect(first.body.stdout).toBe("hello from A GET /audited");
    const suggested = await test.api<{
      permissions: Record<string, unknown>;
      recorded: { kind: string; target: string }[];
    }>("GET", `/v1/workers/${audited.id}/permissions/suggested`);
    expect(suggested.body.recorded).toEqual(
      expect.arrayContaining([
        { kind: "run", target: "curl" },
        { kind: "net", target: `127.0.0.1:${serverA.port}` },
      ]),
    );
    expect(suggested.body.permissions).toMatchObject({
      mode: "enforce",
      run: ["git", "curl"],
      net: [`127.0.0.1:${serverA.port}`],
    });

    const enforced = await spawn(suggested.body.permissions);
    expect((await run(enforced)).body.stdout).toBe("hello from A GET /audited");
    const original = await spawn({ run: ["git"] });
    expect((await run(original)).status).toBe(403);
  });
});
