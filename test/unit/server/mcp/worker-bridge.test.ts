import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { WorkerBridge } from "../../../../server/mcp/worker-bridge.js";

/** A stand-in for the in-container server: real SDK server, linked in memory. */
function createContainerServer(events: string[]): McpServer {
  const server = new McpServer({ name: "fake-container", version: "1" }, { capabilities: { tools: {}, logging: {} } });
  server.registerTool("slow", { inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i += 1) {
      if (token !== undefined)
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: steps },
        });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return { content: [{ type: "text", text: `done ${steps}` }] };
  });
  server.registerTool("ask", { inputSchema: {} }, async () => {
    const answer = await server.server.elicitInput({
      message: "Proceed?",
      requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
    });
    return { content: [{ type: "text", text: `answer ${answer.action} ${JSON.stringify(answer.content)}` }] };
  });
  server.registerTool("wait", { inputSchema: {} }, async (_args, extra) => {
    await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve(), { once: true }));
    events.push("cancelled");
    return { content: [{ type: "text", text: "cancelled" }] };
  });
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

let bridge: WorkerBridge;
let events: string[];
let containerEnds: InMemoryTransport[];
const logs: string[] = [];

function createBridge(serverMethods?: { elicitation: boolean; sampling: boolean }): WorkerBridge {
  return new WorkerBridge({
    openTransport: async (workerId) => {
      if (workerId !== "w1") throw new Error(`no worker ${workerId}`);
      const [bridgeSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createContainerServer(events).connect(serverSide);
      containerEnds.push(serverSide);
      return bridgeSide;
    },
    idleMs: 60_000,
    maxBodyBytes: 16 * 1024 * 1024,
    log: (message) => logs.push(message),
    ...(serverMethods === undefined ? {} : { serverMethods }),
  });
}

beforeEach(() => {
  events = [];
  containerEnds = [];
  bridge = createBridge();
});

afterEach(async () => {
  await bridge.closeAll();
});

const fetchThroughBridge = (workerId: string) => async (url: string | URL, init?: RequestInit) =>
  bridge.handle(workerId, new Request(url, init));

async function connect(workerId = "w1", withElicitation = false) {
  const client = new Client(
    { name: "test", version: "1" },
    { capabilities: withElicitation ? { elicitation: {} } : {} },
  );
  const transport = new StreamableHTTPClientTransport(new URL("http://bridge.test/mcp"), {
    fetch: fetchThroughBridge(workerId),
  });
  await client.connect(transport);
  return { client, transport };
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe("WorkerBridge", () => {
  it("forwards requests and responses verbatim", async () => {
    const { client } = await connect();
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(["ask", "echo", "slow", "wait"]);
    expect(textOf(await client.callTool({ name: "echo", arguments: { text: "héllo ✓" } }))).toBe("héllo ✓");
    expect(bridge.size).toBe(1);
  });

  it("routes progress notifications to the stream of the request that carries the token", async () => {
    const { client } = await connect();
    const seen: number[] = [];
    const result = await client.callTool({ name: "slow", arguments: { steps: 4 } }, undefined, {
      onprogress: (progress) => seen.push(progress.progress),
    });
    expect(textOf(result)).toBe("done 4");
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it("keeps concurrent calls apart, each with its own progress", async () => {
    const { client } = await connect();
    const a: number[] = [];
    const b: number[] = [];
    const [ra, rb] = await Promise.all([
      client.callTool({ name: "slow", arguments: { steps: 3 } }, undefined, { onprogress: (p) => a.push(p.progress) }),
      client.callTool({ name: "slow", arguments: { steps: 5 } }, undefined, { onprogress: (p) => b.push(p.progress) }),
    ]);
    expect([textOf(ra), textOf(rb)]).toEqual(["done 3", "done 5"]);
    expect(a).toEqual([1, 2, 3]);
    expect(b).toEqual([1, 2, 3, 4, 5]);
  });

  it("drops the sandbox's elicitation by default and answers the sandbox, so the call ends instead of hanging", async () => {
    const { client } = await connect("w1", true);
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { ok: true } };
    });
    const result = await client.callTool({ name: "ask", arguments: {} });
    expect(asked).toEqual([]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/elicitation\/create is off on this control plane/);
    expect(logs.some((line) => line.includes("dropped request: elicitation/create"))).toBe(true);
  });

  it("carries server-initiated requests (elicitation) to the client and the answer back when the operator enabled them", async () => {
    await bridge.closeAll();
    bridge = createBridge({ elicitation: true, sampling: false });
    const { client } = await connect("w1", true);
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      expect(request.params.message).toBe("Proceed?");
      return { action: "accept", content: { ok: true } };
    });
    expect(textOf(await client.callTool({ name: "ask", arguments: {} }))).toBe('answer accept {"ok":true}');
  });

  it("forwards cancellation to the container", async () => {
    const { client } = await connect();
    const controller = new AbortController();
    const call = client.callTool({ name: "wait", arguments: {} }, undefined, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort("stop");
    await expect(call).rejects.toThrow();
    await expect.poll(() => events).toContain("cancelled");
    // The session survives a cancellation.
    expect(textOf(await client.callTool({ name: "echo", arguments: { text: "still here" } }))).toBe("still here");
  });

  it("answers an unknown session id with 404", async () => {
    const response = await bridge.handle(
      "w1",
      new Request("http://bridge.test/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": "nope",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    expect(response.status).toBe(404);
  });

  it("does not serve a session under another worker's URL", async () => {
    const { transport } = await connect("w1");
    const response = await bridge.handle(
      "w2",
      new Request("http://bridge.test/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": transport.sessionId ?? "",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    expect(response.status).toBe(404);
  });

  it("refuses a first request that is not initialize, without starting a container process", async () => {
    const response = await bridge.handle(
      "w1",
      new Request("http://bridge.test/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    expect(response.status).toBe(400);
    expect(containerEnds).toHaveLength(0);
  });

  it("ends the session and its container side on DELETE", async () => {
    const { transport } = await connect();
    let closed = false;
    (containerEnds[0] as InMemoryTransport).onclose = () => {
      closed = true;
    };
    await transport.terminateSession();
    expect(bridge.size).toBe(0);
    expect(closed).toBe(true);
  });

  it("answers open requests with an error when the container side dies, instead of hanging", async () => {
    const { client } = await connect();
    const call = client.callTool({ name: "wait", arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await (containerEnds[0] as InMemoryTransport).close();
    await expect(call).rejects.toThrow(/sandbox ended before answering/);
    expect(bridge.size).toBe(0);
  });

  it("closes every session of a worker that goes down", async () => {
    await connect();
    await connect();
    expect(bridge.size).toBe(2);
    await bridge.closeWorker("w1");
    expect(bridge.size).toBe(0);
  });
});

describe("WorkerBridge idle expiry", () => {
  it("expires sessions idle for longer than idleMs", async () => {
    const idleBridge = new WorkerBridge({
      openTransport: async () => {
        const [bridgeSide, serverSide] = InMemoryTransport.createLinkedPair();
        await createContainerServer([]).connect(serverSide);
        return bridgeSide;
      },
      idleMs: 100,
      maxBodyBytes: 1024 * 1024,
      log: () => undefined,
    });
    try {
      const client = new Client({ name: "idle", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL("http://bridge.test/mcp"), {
          fetch: async (url, init) => idleBridge.handle("w1", new Request(url, init)),
        }),
      );
      expect(idleBridge.size).toBe(1);
      await expect.poll(() => idleBridge.size, { timeout: 2_000 }).toBe(0);
    } finally {
      await idleBridge.closeAll();
    }
  });
});
