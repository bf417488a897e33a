import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../server/app.js";
import { OPERATIONS, toOpenApiPath } from "../../../server/openapi.js";
import type { AppDeps } from "../../../server/app.js";
import { allowedHostHeaders } from "../../../server/middleware/guards.js";
import { PublicWorkerSchema } from "../../../runtime/workers/worker.js";
import { toPublicWorker } from "../../../server/routes/present-worker.js";
import { sampleWorker } from "../runtime/fixtures.js";

const HOST = { host: "127.0.0.1:7070" };

// Only the OpenAPI routes are exercised; everything else stays unreachable.
function makeApp() {
  return createApp({
    token: "unit-test-token-0123456789",
    workers: {},
    allowedHosts: () => allowedHostHeaders("127.0.0.1", 7070),
    baseUrl: () => "http://127.0.0.1:7070",
    maxBodyBytes: 1024,
    maxMcpBodyBytes: 4096,
    log: () => undefined,
  } as unknown as AppDeps);
}

async function fetchDocument(): Promise<
  {
    paths: Record<
      string,
      Record<string, { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }>
    >;
  } & Record<string, unknown>
> {
  const response = await makeApp().request("/openapi.json", { headers: HOST });
  expect(response.status).toBe(200);
  return response.json();
}

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const document = await fetchDocument();
    expect(document.openapi).toBe("3.1.0");
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("describes every route the app serves, and nothing it does not", async () => {
    const document = await fetchDocument();
    const served = new Set<string>();
    for (const route of makeApp().routes) {
      if (route.method !== "ALL") served.add(`${route.method.toLowerCase()} ${route.path}`);
      // app.all handlers (the MCP endpoints) answer POST, GET and DELETE; other ALL entries are middleware.
      else if (route.path.endsWith("/mcp"))
        for (const method of ["post", "get", "delete"]) served.add(`${method} ${route.path}`);
    }
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`)),
    );
    const servedAsOpenApi = new Set([...served].map((entry) => toOpenApiPath(entry)));
    expect([...servedAsOpenApi].filter((entry) => !documented.has(entry))).toEqual([]);
    expect([...documented].filter((entry) => !servedAsOpenApi.has(entry))).toEqual([]);
    expect(documented.size).toBe(OPERATIONS.length);
  });

  it("takes request bodies from the route schemas, so a field the route refuses is refused by the document too", async () => {
    const document = await fetchDocument();
    const create = document.paths["/v1/workers"]?.post?.requestBody?.content["application/json"]?.schema;
    expect(create).toMatchObject({ type: "object", additionalProperties: false, required: ["repo"] });
    const exec = document.paths["/v1/workers/{id}/exec"]?.post?.requestBody?.content["application/json"]?.schema as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(exec.properties)).toContain("command");
  });

  it("describes the worker exactly as the API presents it", () => {
    const withGate = sampleWorker({
      env: { SECRET: "x" },
      agent: { command: ["node", "agent.js"], env: { KEY: "v" } },
      gate: {
        task: { status: "finished", summary: "fixed", at: "2026-01-01T00:00:00.000Z" },
        validatedTree: null,
        failures: 2,
      },
    });
    for (const worker of [sampleWorker(), withGate]) {
      const presented = toPublicWorker(worker, "http://127.0.0.1:7070");
      const parsed = PublicWorkerSchema.strict().safeParse(presented);
      expect(parsed.error?.issues ?? []).toEqual([]);
    }
  });
});

describe("GET /docs", () => {
  it("serves a self-contained reference page that renders the document", async () => {
    const response = await makeApp().request("/docs", { headers: HOST });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    const html = await response.text();
    expect(html).toContain('fetch("/openapi.json")');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href="https?:/);
  });

  it("is still behind the Host guard", async () => {
    const response = await makeApp().request("/openapi.json", { headers: { host: "evil.example:7070" } });
    expect(response.status).toBe(403);
  });
});
