import { describe, expect, it } from "vitest";
import { WorkcellClient, WorkcellError } from "../../../client/index.js";
import { SHELL_PROTOCOL } from "../../../contract/shell-frames.js";

const TOKEN = "t0ken-t0ken-t0ken";

/** A client whose fetch records each request and answers `body` as JSON. */
function recordingClient(body: unknown): {
  client: WorkcellClient;
  seen: { url: string; method: string | undefined; headers: HeadersInit | undefined }[];
} {
  const seen: { url: string; method: string | undefined; headers: HeadersInit | undefined }[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push({ url: String(input), method: init?.method, headers: init?.headers });
    return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
  };
  return {
    client: new WorkcellClient({
      url: "http://127.0.0.1:7171/",
      token: TOKEN,
      fetch: fetch as typeof globalThis.fetch,
    }),
    seen,
  };
}

describe("WorkcellClient's worker requests", () => {
  it("starts a new task with POST /v1/workers/:id/task and answers the worker", async () => {
    const { client, seen } = recordingClient({ id: "3f9c1a2b", status: "running" });
    expect(await client.startTask("3f9c1a2b")).toEqual({ id: "3f9c1a2b", status: "running" });
    expect(seen).toEqual([
      {
        url: "http://127.0.0.1:7171/v1/workers/3f9c1a2b/task",
        method: "POST",
        headers: { Authorization: `Bearer ${TOKEN}` },
      },
    ]);
  });

  it("reads one pipeline task with GET /v1/tasks/:id", async () => {
    const { client, seen } = recordingClient({ id: "t1" });
    await client.task("t1");
    expect(seen[0]).toMatchObject({ url: "http://127.0.0.1:7171/v1/tasks/t1", method: "GET" });
  });

  it("builds the shell's upgrade request: the terminal in the query, the token and the protocol in the headers", () => {
    const { client, seen } = recordingClient({});
    expect(client.shellRequest("3f9c1a2b", { columns: 120, rows: 40, term: "xterm-256color" })).toEqual({
      url: "http://127.0.0.1:7171/v1/workers/3f9c1a2b/shell?columns=120&rows=40&term=xterm-256color",
      headers: { Authorization: `Bearer ${TOKEN}`, connection: "Upgrade", upgrade: SHELL_PROTOCOL },
    });
    expect(client.shellRequest("3f9c1a2b", { columns: 80, rows: 24 }).url).toBe(
      "http://127.0.0.1:7171/v1/workers/3f9c1a2b/shell?columns=80&rows=24",
    );
    expect(seen).toEqual([]);
  });

  it("says why the control plane could not be reached, in the message and in details.reason", async () => {
    const fetch = async () => {
      throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    };
    const client = new WorkcellClient({
      url: "http://127.0.0.1:7171",
      token: TOKEN,
      fetch: fetch as typeof globalThis.fetch,
    });
    const failure = await client.list().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkcellError);
    expect(failure).toMatchObject({ status: 0, code: "network", details: { reason: "ECONNREFUSED" } });
    expect((failure as Error).message).toContain("(ECONNREFUSED)");
  });
});
