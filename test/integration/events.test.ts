import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, createTestRepo } from "./helpers/test-repo.js";

let test: TestPlane;
let worker: ApiWorker;
const SECRET = "zz-secret-value-81f3a2";

beforeAll(async () => {
  test = await startTestPlane();
  const repo = await createTestRepo(await createTempDir("workcell-events-"));
  worker = await spawnOn(test, repo, {
    permissions: { env: ["SERVICE_KEY"], run: ["cat", "git", "ls", "printf", "echo"] },
    env: { SERVICE_KEY: SECRET },
  });
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf([worker.id]);
});

interface Event {
  seq: number;
  ts: string;
  workerId: string;
  type: string;
  tool?: string;
  args?: unknown;
  result?: string;
  isError?: boolean;
  durationMs?: number;
  sessionId?: string;
}

/** Reads an SSE stream until `count` events arrived (or the time is up). */
async function readStream(
  url: string,
  count: number,
  headers: Record<string, string> = {},
): Promise<{ id: string; event: string; data: Event }[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${TEST_TOKEN}`, ...headers },
    signal: controller.signal,
  });
  const decoder = new TextDecoder();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const out: { id: string; event: string; data: Event }[] = [];
  let buffer = "";
  try {
    while (out.length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let split: number;
      while ((split = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, split);
        buffer = buffer.slice(split + 2);
        const fields = Object.fromEntries(
          block
            .split("\n")
            .filter((l) => !l.startsWith(":"))
            .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]),
        );
        if (fields.data)
          out.push({
            id: fields.id as string,
            event: fields.event as string,
            data: JSON.parse(fields.data as string) as Event,
          });
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return out;
}

describe("the audit trail", () => {
  it("records every tool call, exec, refusal and lifecycle change in order, with durations, and a secret value nowhere", async () => {
    const { client } = await test.connect(worker.mcpUrl);
    await client.callTool({ name: "write_file", arguments: { path: "note.txt", content: `the key is ${SECRET}` } });
    await client.callTool({ name: "read_file", arguments: { path: "note.txt" } });
    await client.callTool({ name: "shell", arguments: { command: "python3 -c 1" } });
    await client.close();
    await test.api("POST", `/v1/workers/${worker.id}/exec`, { command: 'printf %s "$SERVICE_KEY"' });
    await test.api("POST", `/v1/workers/${worker.id}/exec`, { command: "true", env: { OTHER: "x" } });

    const { body } = await test.api<{ events: Event[]; next: number | null }>(
      "GET",
      `/v1/workers/${worker.id}/events?limit=100`,
    );
    const types = body.events.map((event) => event.type);
    expect(types[0]).toBe("created");
    expect(types).toEqual(expect.arrayContaining(["tool_call", "permission_denied", "exec"]));
    const seqs = body.events.map((event) => event.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    const calls = body.events.filter((event) => event.type === "tool_call");
    expect(calls.map((event) => event.tool)).toEqual(["write_file", "read_file", "shell"]);
    for (const call of calls) {
      expect(call.durationMs).toBeGreaterThanOrEqual(0);
      expect(call.sessionId).toBeTruthy();
    }
    expect(calls[2]).toMatchObject({
      isError: true,
      errorCode: "permission_denied",
      result: expect.stringMatching(/PermissionDenied: run access to "python3"/),
    });
    // The bridge records the refusal from the code the tools put in the result's _meta, not from its text.
    expect(body.events).toContainEqual(
      expect.objectContaining({
        type: "permission_denied",
        tool: "shell",
        message: expect.stringMatching(/^Error: PermissionDenied: run access to "python3"/),
      }),
    );
    const everything = JSON.stringify(body) + test.logs.join("\n");
    expect(everything).not.toContain(SECRET);
    expect(everything).toContain("[redacted]");
    expect(test.logs.some((line) => /INFO write_file\(.*\) -> Wrote \d+ bytes to note.txt \(\d+ ms\)/.test(line))).toBe(
      true,
    );
    expect(test.logs.some((line) => /WARN shell\(/.test(line))).toBe(true);
  });

  it("pages with after, limit and type", async () => {
    const first = await test.api<{ events: Event[]; next: number }>("GET", `/v1/workers/${worker.id}/events?limit=2`);
    expect(first.body.events).toHaveLength(2);
    const second = await test.api<{ events: Event[] }>(
      "GET",
      `/v1/workers/${worker.id}/events?limit=2&after=${first.body.next}`,
    );
    expect(second.body.events[0]?.seq).toBeGreaterThan(first.body.next);
    const onlyExec = await test.api<{ events: Event[] }>("GET", `/v1/workers/${worker.id}/events?type=exec`);
    expect(onlyExec.body.events.every((event) => event.type === "exec")).toBe(true);
    expect((await test.api("GET", `/v1/workers/${worker.id}/events?limit=zero`)).status).toBe(400);
  });

  it("streams events as Server-Sent Events, live and resumed from Last-Event-ID", async () => {
    const all = await test.api<{ events: Event[] }>("GET", `/v1/workers/${worker.id}/events?limit=1000`);
    const lastSeq = all.body.events.at(-1)?.seq ?? 0;
    const live = readStream(`${test.plane.url}/v1/events?workerId=${worker.id}&type=exec&after=${lastSeq}`, 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await test.api("POST", `/v1/workers/${worker.id}/exec`, { command: "echo one" });
    await test.api("POST", `/v1/workers/${worker.id}/exec`, { command: "echo two" });
    const received = await live;
    expect(received.map((event) => event.event)).toEqual(["exec", "exec"]);
    expect(Number(received[1]?.id)).toBeGreaterThan(Number(received[0]?.id));

    const resumed = await readStream(`${test.plane.url}/v1/events?workerId=${worker.id}`, 1, {
      "last-event-id": received[0]?.id ?? "0",
    });
    expect(resumed[0]?.data.seq).toBe(Number(received[0]?.id) + 1);
  });
});
