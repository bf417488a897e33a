import { readdir, readFile, writeFile } from "node:fs/promises";
import { request } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  docker,
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { createTempDir, createTestRepo, git } from "../helpers/test-repo.js";

let test: TestPlane;
let repo: string;
let scratch: string;
let worker: ApiWorker;

beforeAll(async () => {
  test = await startTestPlane();
  scratch = await createTempDir("workcell-api-");
  repo = await createTestRepo(scratch);
  worker = await spawnOn(test, repo);
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf([worker.id]);
});

const ROUTES: [string, string][] = [
  ["GET", "/v1/workers"],
  ["POST", "/v1/workers"],
  ["GET", "/v1/workers/WID"],
  ["DELETE", "/v1/workers/WID"],
  ["POST", "/v1/workers/WID/stop"],
  ["POST", "/v1/workers/WID/start"],
  ["POST", "/v1/workers/WID/exec"],
  ["GET", "/v1/workers/WID/diff"],
  ["POST", "/v1/workers/WID/export"],
  ["GET", "/v1/workers/WID/permissions"],
  ["PATCH", "/v1/workers/WID/permissions"],
  ["GET", "/v1/workers/WID/permissions/suggested"],
  ["POST", "/v1/workers/WID/mcp"],
  ["GET", "/v1/workers/WID/mcp"],
  ["DELETE", "/v1/workers/WID/mcp"],
];

/** A request with full control of the headers (fetch may not set Host), on a fresh connection. */
function raw(
  method: string,
  route: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  const url = new URL(`${test.plane.url}${route.replace("WID", worker.id)}`);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    // The server may answer (413) and close before the whole body is sent.
    req.on("error", (error) =>
      String(error).includes("EPIPE") || String(error).includes("ECONNRESET") ? undefined : reject(error),
    );
    req.end(body);
  });
}

/** Everything that would show a side effect: containers, workspace dirs, state entries. */
async function footprint() {
  const containers = await docker.listContainers({ all: true, filters: { label: ["dev.workcell.managed=true"] } });
  const dirs = await readdir(path.join(test.dataDir, "workers")).catch(() => []);
  const state = JSON.parse(await readFile(path.join(test.dataDir, "state.json"), "utf8")) as {
    workers: Record<string, unknown>;
  };
  return {
    containers: containers.length,
    dirs: dirs.length,
    workers: Object.keys(state.workers).length,
    refs: git(repo, "for-each-ref", "refs/workcell/"),
  };
}

describe("control-plane API hardening", () => {
  it("answers 401 to missing, wrong and prefix-matching tokens on every route, with the uniform error", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong-token-wrong-token" },
      { authorization: `Bearer ${TEST_TOKEN.slice(0, -1)}` },
      { authorization: `Bearer ${TEST_TOKEN}x` },
      { authorization: TEST_TOKEN },
      { authorization: `Basic ${TEST_TOKEN}` },
    ];
    for (const [method, route] of ROUTES) {
      for (const headers of attempts) {
        const response = await raw(method, route, headers);
        expect(response.status, `${method} ${route} ${JSON.stringify(headers)}`).toBe(401);
        expect(JSON.parse(response.text)).toMatchObject({ error: { code: "unauthorized" } });
        expect(response.text).not.toContain(TEST_TOKEN.slice(0, 12));
      }
    }
  });

  it("answers 403 to a foreign Host or a foreign Origin on every route, MCP endpoints included", async () => {
    for (const [method, route] of [...ROUTES, ["GET", "/health"] as [string, string]]) {
      const auth = { authorization: `Bearer ${TEST_TOKEN}` };
      expect((await raw(method, route, { ...auth, host: "evil.example" })).status, `${method} ${route} host`).toBe(403);
      for (const origin of ["http://127.0.0.1", "http://evil.example", "null"]) {
        expect((await raw(method, route, { ...auth, origin })).status, `${method} ${route} origin ${origin}`).toBe(403);
      }
    }
  });

  it("refuses oversized bodies with 413", async () => {
    const auth = { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" };
    const rest = await raw(
      "POST",
      "/v1/workers",
      auth,
      JSON.stringify({ repo: "/x", name: "a".repeat(2 * 1024 * 1024) }),
    );
    expect(rest.status).toBe(413);
    const mcp = await raw(
      "POST",
      "/v1/workers/WID/mcp",
      { ...auth, accept: "application/json, text/event-stream" },
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { pad: "x".repeat(33 * 1024 * 1024) } }),
    );
    expect(mcp.status).toBe(413);
  });

  it("answers bad input with a 4xx uniform error and leaves nothing behind", async () => {
    const notADirectory = path.join(scratch, "file.txt");
    await writeFile(notADirectory, "x");
    const before = await footprint();
    const auth = { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" };
    const cases: [string, string, string | undefined][] = [
      ["POST", "/v1/workers", "{not json"],
      ["POST", "/v1/workers", JSON.stringify({ repo, unknown: 1 })],
      ["POST", "/v1/workers", JSON.stringify({ repo: 42 })],
      ["POST", "/v1/workers", JSON.stringify({ repo: notADirectory })],
      ["POST", "/v1/workers", JSON.stringify({ repo: test.dataDir })],
      ["POST", "/v1/workers", JSON.stringify({ repo: path.join(test.dataDir, "workers", worker.id, "workspace") })],
      ["POST", "/v1/workers", JSON.stringify({ repo, baseRef: "--upload-pack=touch /tmp/pwn" })],
      ["POST", "/v1/workers", JSON.stringify({ repo, name: "../../etc" })],
      ["POST", "/v1/workers", JSON.stringify({ repo, permissions: { read: ["/"] } })],
      ["POST", "/v1/workers/WID/exec", JSON.stringify({ command: ["ls"], timeoutMs: "soon" })],
      ["POST", "/v1/workers/WID/export", JSON.stringify({ branch: "--force" })],
      ["GET", "/v1/workers/..%2F..%2Fetc%2Fpasswd", undefined],
      ["POST", "/v1/workers/%2e%2e/exec", JSON.stringify({ command: "id" })],
      ["GET", "/v1/workers/deadbeef%00", undefined],
      ["GET", "/v1/workers/DEADBEEF", undefined],
      ["DELETE", "/v1/workers/00000000", undefined],
    ];
    for (const [method, route, body] of cases) {
      const response = await raw(method, route, auth, body);
      expect(response.status, `${method} ${route} ${body}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${method} ${route} ${body}`).toBeLessThan(500);
      const parsed = JSON.parse(response.text) as { error: { code: string; message: string } };
      expect(Object.keys(parsed)).toEqual(["error"]);
      expect(parsed.error.message.length).toBeGreaterThan(10);
    }
    expect(await footprint()).toEqual(before);
  });

  it("listens only on the configured loopback address", async () => {
    const port = Number(new URL(test.plane.url).port);
    const table = await readFile("/proc/net/tcp", "utf8");
    const listening = table
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[3] === "0A" && Number.parseInt((fields[1] ?? "").split(":")[1] ?? "", 16) === port)
      .map((fields) => (fields[1] ?? "").split(":")[0]);
    expect(listening).toEqual(["0100007F"]);
  });
});
