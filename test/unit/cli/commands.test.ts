import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { CliContext } from "../../../cli/command-context.js";
import { runClientCommand } from "../../../cli/commands.js";
import { CliError } from "../../../cli/connection.js";

interface Recorded {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

const TOKEN = "t0ken-for-the-cli-test";
const WORKER = {
  id: "3f9c1a2b",
  name: "fix-login",
  status: "running",
  branch: "workcell/fix-login-3f9c1a2b",
  repo: "/src/app",
  network: "none",
  mcpUrl: "http://127.0.0.1:1/v1/workers/3f9c1a2b/mcp",
};

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A control plane stand-in on loopback that records each request and answers `reply`'s status and JSON. */
async function startPlane(
  reply: (request: Recorded) => [number, unknown],
): Promise<{ url: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const request = {
        method: incoming.method,
        url: incoming.url,
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(request);
      const [status, body] = reply(request);
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  const listening = server;
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`, requests };
}

function context(url: string): { ctx: CliContext; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CliContext = {
    env: { WORKCELL_URL: url, WORKCELL_TOKEN: TOKEN },
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    isTty: false,
  };
  return { ctx, out, err };
}

describe("the CLI's commands, through the typed client", () => {
  it("lists workers with one authenticated GET and prints them as a table", async () => {
    const plane = await startPlane(() => [200, { workers: [WORKER] }]);
    const { ctx, out } = context(plane.url);
    expect(await runClientCommand("ls", [], ctx)).toBe(0);
    expect(plane.requests).toHaveLength(1);
    expect(plane.requests[0]).toMatchObject({
      method: "GET",
      url: "/v1/workers",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(out.join("")).toBe(
      [
        "ID        NAME       STATUS   BRANCH                       NETWORK  REPO",
        "3f9c1a2b  fix-login  running  workcell/fix-login-3f9c1a2b  none     /src/app",
        "",
      ].join("\n"),
    );
  });

  it("spawns with the permissions the flags name, and prints the new worker", async () => {
    const plane = await startPlane(() => [201, WORKER]);
    const { ctx, out } = context(plane.url);
    expect(
      await runClientCommand(
        "spawn",
        ["/src/app", "--name", "fix-login", "--allow-run=git,npm", "--memory", "2048"],
        ctx,
      ),
    ).toBe(0);
    expect(plane.requests[0]).toMatchObject({
      method: "POST",
      url: "/v1/workers",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    });
    expect(JSON.parse(plane.requests[0]?.body ?? "")).toEqual({
      repo: "/src/app",
      name: "fix-login",
      permissions: { run: ["git", "npm"] },
      resources: { memoryMb: 2048 },
    });
    expect(out.join("")).toBe(`3f9c1a2b running on workcell/fix-login-3f9c1a2b\nMCP: ${WORKER.mcpUrl}\n`);
  });

  it("turns a refused token into the server's message and exit code 77", async () => {
    const plane = await startPlane(() => [
      401,
      { error: { code: "unauthorized", message: "Invalid bearer token: send Authorization: Bearer <token>." } },
    ]);
    const { ctx } = context(plane.url);
    const failure = await runClientCommand("diff", ["3f9c1a2b"], ctx).catch((error: unknown) => error);
    expect(plane.requests[0]).toMatchObject({ method: "GET", url: "/v1/workers/3f9c1a2b/diff" });
    expect(failure).toBeInstanceOf(CliError);
    expect(failure).toMatchObject({
      message: "Invalid bearer token: send Authorization: Bearer <token>.",
      exitCode: 77,
    });
  });

  it("says how to start the control plane when nothing answers at its address", async () => {
    const plane = await startPlane(() => [200, {}]);
    await new Promise((resolve) => server?.close(resolve));
    const { ctx } = context(plane.url);
    await expect(runClientCommand("ls", [], ctx)).rejects.toThrow(
      `Cannot reach the control plane at ${plane.url} (ECONNREFUSED). Start it with 'npm start', or pass --url.`,
    );
  });
});
