import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../../server/app.js";
import { createFakeWorkers, type FakeWorkers } from "../runtime/workers/fake-workers.js";
import type { WorkerBridge } from "../../../server/mcp/worker-bridge.js";
import { allowedHostHeaders, tokensMatch } from "../../../server/middleware/guards.js";
import type { EngineInfo } from "../../../runtime/docker/container-driver.js";
import { dockerUnavailable } from "../../../runtime/docker/docker-driver.js";
import type { ApprovalQueue } from "../../../runtime/approvals/approval-queue.js";
import type { PipelineService } from "../../../runtime/pipeline/pipeline-service.js";
import type { OrchestratorEndpoint } from "../../../server/orchestrator/orchestrator-endpoint.js";

const TOKEN = "unit-test-token-0123456789";
const ENGINE = {
  runtimes: ["runc", "runsc"],
  runtimeDetails: { runsc: { path: "/usr/bin/runsc", args: ["--network=none", "--host-uds=open"] } },
};

/** The app over real workers on the in-memory engine and store, as the control plane builds it. */
async function makePlane(engine: { info?: () => Promise<EngineInfo> } = {}) {
  const fake = await createFakeWorkers(ENGINE);
  made.push(fake);
  const { workers, driver, events } = fake;
  if (engine.info !== undefined) driver.info = engine.info;
  const app = createApp({
    token: TOKEN,
    workers,
    bridge: {} as WorkerBridge,
    driver,
    allowedHosts: () => allowedHostHeaders("127.0.0.1", 7070),
    baseUrl: () => "http://127.0.0.1:7070",
    maxBodyBytes: 1024,
    maxMcpBodyBytes: 4096,
    log: () => undefined,
    events,
    approvals: {} as ApprovalQueue,
    orchestrator: {} as OrchestratorEndpoint,
    pipeline: {} as PipelineService,
  });
  return { app, ...fake };
}

const makeApp = async (engine: { info?: () => Promise<EngineInfo> } = {}) => (await makePlane(engine)).app;
const made: FakeWorkers[] = [];
afterEach(async () => {
  for (const fake of made.splice(0)) await fake.cleanUp();
});

const headers = (extra: Record<string, string> = {}) => ({
  host: "127.0.0.1:7070",
  authorization: `Bearer ${TOKEN}`,
  ...extra,
});

describe("control plane HTTP guards", () => {
  it("serves /health without a token", async () => {
    const response = await (await makeApp()).request("/health", { headers: { host: "127.0.0.1:7070" } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, docker: { available: true } });
  });

  it("says on /health which runtime workers get: runsc when the engine offers it", async () => {
    const response = await (await makeApp()).request("/health", { headers: { host: "127.0.0.1:7070" } });
    const body = (await response.json()) as { docker: { runtime: { exceptions: string[] } } };
    expect(body).toMatchObject({
      docker: { runtime: { runtime: "runsc", source: "default", offered: ["runc", "runsc"] } },
    });
    expect(body.docker.runtime.exceptions).toEqual([
      expect.stringMatching(/^workers with net: true run under runc: .*--network=none/),
    ]);
  });

  it("reports an unreachable engine on /health with 503 and the fix", async () => {
    const app = await makeApp({ info: async () => Promise.reject(dockerUnavailable(new Error("ENOENT"))) });
    const response = await app.request("/health", { headers: { host: "127.0.0.1:7070" } });
    expect(response.status).toBe(503);
    expect(JSON.stringify(await response.json())).toMatch(/ensure-docker/);
  });

  it("answers 401 without a token and with a wrong one, never echoing it", async () => {
    const missing = await (await makeApp()).request("/v1/workers", { headers: { host: "127.0.0.1:7070" } });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: "unauthorized" } });
    const wrong = await (
      await makeApp()
    ).request("/v1/workers", { headers: headers({ authorization: "Bearer guess-guess-guess" }) });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain("guess-guess-guess");
  });

  it("names the Bearer scheme in WWW-Authenticate on every 401, the MCP endpoints' included", async () => {
    for (const route of ["/v1/workers", "/v1/mcp", "/v1/workers/0a1b2c3d/mcp"]) {
      const response = await (
        await makeApp()
      ).request(route, {
        method: "POST",
        headers: { host: "127.0.0.1:7070", "content-type": "application/json" },
        body: "{}",
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="workcell"');
    }
    const authorized = await (await makeApp()).request("/v1/workers", { headers: headers() });
    expect(authorized.headers.get("www-authenticate")).toBeNull();
  });

  it("answers with the worker list when the token is right", async () => {
    const response = await (await makeApp()).request("/v1/workers", { headers: headers() });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ workers: [] });
  });

  it("refuses a foreign Host header (DNS rebinding) with 403", async () => {
    const response = await (
      await makeApp()
    ).request("/v1/workers", { headers: headers({ host: "evil.example:7070" }) });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: "permission_denied" } });
  });

  it("accepts the loopback names interchangeably", async () => {
    const response = await (await makeApp()).request("/v1/workers", { headers: headers({ host: "localhost:7070" }) });
    expect(response.status).toBe(200);
  });

  it("refuses every Origin but its own with 403, even on /health", async () => {
    for (const origin of [
      "http://evil.example:7070",
      "http://127.0.0.1",
      "https://127.0.0.1:7070",
      "http://127.0.0.1:7071",
      "null",
      "http://127.0.0.1:7070/x",
    ]) {
      const response = await (await makeApp()).request("/health", { headers: { host: "127.0.0.1:7070", origin } });
      expect(response.status, origin).toBe(403);
    }
  });

  it("accepts its own origin (the dashboard's requests from the browser)", async () => {
    for (const origin of ["http://127.0.0.1:7070", "http://localhost:7070"]) {
      const response = await (await makeApp()).request("/v1/workers", { headers: headers({ origin }) });
      expect(response.status, origin).toBe(200);
    }
  });

  it("rejects an invalid body with 400 naming the field, before doing anything", async () => {
    const { app, store, driver } = await makePlane();
    const response = await app.request("/v1/workers", {
      method: "POST",
      headers: headers({ "content-type": "application/json" }),
      body: JSON.stringify({ repo: 42 }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("invalid_input");
    expect(body.error.message).toMatch(/repo: .*expected string, received number/);
    expect(await store.listWorkers()).toEqual([]);
    expect(await driver.list({})).toEqual([]);
  });

  it("creates a worker, and answers an exec on it once stopped with 409 and the route that starts it", async () => {
    const { app, repo } = await makePlane();
    const created = await app.request("/v1/workers", {
      method: "POST",
      headers: headers({ "content-type": "application/json" }),
      body: JSON.stringify({ repo }),
    });
    expect(created.status).toBe(201);
    const worker = (await created.json()) as { id: string; status: string; mcpUrl: string };
    expect(worker).toMatchObject({ status: "running", mcpUrl: `http://127.0.0.1:7070/v1/workers/${worker.id}/mcp` });
    expect((await app.request(`/v1/workers/${worker.id}/stop`, { method: "POST", headers: headers() })).status).toBe(
      200,
    );
    const refused = await app.request(`/v1/workers/${worker.id}/exec`, {
      method: "POST",
      headers: headers({ "content-type": "application/json" }),
      body: JSON.stringify({ command: ["true"] }),
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      error: {
        code: "conflict",
        message: `Worker ${worker.id} is stopped, not running. Start it first. (POST /v1/workers/${worker.id}/start)`,
      },
    });
  });

  it("rejects unknown fields and malformed JSON with 400", async () => {
    const unknown = await (
      await makeApp()
    ).request("/v1/workers", {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ repo: "/x", colour: "red" }),
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(await unknown.json())).toMatch(/colour/);
    const malformed = await (
      await makeApp()
    ).request("/v1/workers", { method: "POST", headers: headers(), body: "{not json" });
    expect(malformed.status).toBe(400);
  });

  it("caps request bodies with 413", async () => {
    const response = await (
      await makeApp()
    ).request("/v1/workers", {
      method: "POST",
      headers: headers({ "content-length": "5000" }),
      body: JSON.stringify({ repo: `/${"x".repeat(5000)}` }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "payload_too_large" } });
  });

  it("answers unknown routes with the uniform 404 body", async () => {
    const response = await (await makeApp()).request("/v1/nothing", { headers: headers() });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: "not_found" } });
  });
});

describe("guards", () => {
  it("compares tokens exactly", () => {
    expect(tokensMatch(TOKEN, TOKEN)).toBe(true);
    expect(tokensMatch(`${TOKEN}x`, TOKEN)).toBe(false);
    expect(tokensMatch("", TOKEN)).toBe(false);
  });

  it("accepts only the bound address for non-loopback binds", () => {
    expect([...allowedHostHeaders("10.0.0.5", 8080)]).toEqual(["10.0.0.5:8080"]);
    expect(allowedHostHeaders("::1", 7070).has("[::1]:7070")).toBe(true);
  });
});
