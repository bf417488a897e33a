import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLIENT_GONE_REASON, CONTAINER_GONE_CODE } from "../../../../server/mcp/bridge-session.js";
import { openBridgeSession, readMessages, type BridgeHarness } from "./bridge-harness.js";

let harness: BridgeHarness | undefined;

afterEach(async () => {
  await harness?.session.close();
  harness = undefined;
});

const toolCall = (id: string | number, name = "echo", args: Record<string, unknown> = { text: "hi" }) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});
const textAnswer = (id: string | number, text: string, isError = false) => ({
  jsonrpc: "2.0" as const,
  id,
  result: { content: [{ type: "text", text }], ...(isError ? { isError: true } : {}) },
});

describe("BridgeSession relaying", () => {
  it("carries the agent's request to the container verbatim and the container's answer back, keeping the agent's id", async () => {
    harness = await openBridgeSession();
    const request = toolCall("agent-7", "read_file", { path: "a.txt", nested: { deep: [1, "é"] } });
    const response = harness.post(request);
    expect(await harness.nextToContainer((message) => message.id === "agent-7")).toEqual(request);
    await harness.container.send(textAnswer("agent-7", "contents"));
    expect(await readMessages(await response)).toEqual([textAnswer("agent-7", "contents")]);
  });

  it("tells the control plane the session id it gave the agent, and sees every agent message and container response", async () => {
    const initialized: string[] = [];
    const activity: string[] = [];
    const responses: JSONRPCMessage[] = [];
    harness = await openBridgeSession({
      onInitialized: (_session, id) => initialized.push(id),
      onActivity: (workerId) => activity.push(workerId),
      onResponse: (_workerId, message) => responses.push(message),
    });
    expect(initialized).toEqual([harness.sessionId]);
    const before = activity.length;
    const response = harness.post(toolCall(1));
    await harness.nextToContainer((message) => message.id === 1);
    await harness.container.send(textAnswer(1, "done"));
    await readMessages(await response);
    expect(activity.length).toBe(before + 1);
    expect(activity.every((workerId) => workerId === "w1")).toBe(true);
    expect(responses.at(-1)).toEqual(textAnswer(1, "done"));
  });

  it("reports each finished tool call once, with its arguments, the answer's text and whether it failed", async () => {
    harness = await openBridgeSession();
    const first = harness.post(toolCall(1, "build_run", { target: "all" }));
    const second = harness.post(toolCall(2, "test_run", {}));
    await harness.nextToContainer((message) => message.id === 2);
    await harness.container.send({
      jsonrpc: "2.0",
      id: 1,
      result: {
        content: [
          { type: "text", text: "line one" },
          { type: "image", data: "", mimeType: "image/png" },
          { type: "text", text: "line two" },
        ],
      },
    });
    await harness.container.send(textAnswer(2, "Error: 3 tests failed", true));
    await Promise.all([first, second].map(async (response) => readMessages(await response)));
    expect(harness.toolCalls).toEqual([
      {
        workerId: "w1",
        sessionId: harness.sessionId,
        tool: "build_run",
        args: { target: "all" },
        result: "line one\nline two",
        isError: false,
        durationMs: expect.any(Number),
      },
      {
        workerId: "w1",
        sessionId: harness.sessionId,
        tool: "test_run",
        args: {},
        result: "Error: 3 tests failed",
        isError: true,
        durationMs: expect.any(Number),
      },
    ]);
  });

  it("drops an answer to a request the agent never sent, and says so in the log", async () => {
    harness = await openBridgeSession();
    await harness.container.send(textAnswer("ghost", "nobody asked"));
    expect(harness.logs).toContainEqual(
      expect.stringContaining("dropped a message from the container: no open request with id ghost"),
    );
  });

  it("answers a sampling request the operator did not enable with method-not-found, under the container's id, instead of passing it on", async () => {
    harness = await openBridgeSession();
    await harness.container.send({
      jsonrpc: "2.0",
      id: 41,
      method: "sampling/createMessage",
      params: { messages: [], maxTokens: 1 },
    });
    const answer = await harness.nextToContainer((message) => message.id === 41);
    expect(answer).toMatchObject({
      id: 41,
      error: { code: -32601, message: expect.stringMatching(/sampling\/createMessage is off/) },
    });
    expect(harness.logs).toContainEqual(expect.stringContaining("dropped request: sampling/createMessage"));
  });
});

describe("BridgeSession cancellation", () => {
  it("passes the agent's cancellation on, ends the call's stream without an answer, records the call as cancelled and drops the late answer", async () => {
    harness = await openBridgeSession();
    const response = harness.post(toolCall(5, "exec", { command: "sleep 100" }));
    await harness.nextToContainer((message) => message.id === 5);
    const cancel = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 5, reason: "changed my mind" },
    };
    await (await harness.post(cancel)).text();
    expect(await harness.nextToContainer((message) => message.method === "notifications/cancelled")).toEqual(cancel);
    expect(await readMessages(await response)).toEqual([]);
    expect(harness.toolCalls).toEqual([
      expect.objectContaining({ tool: "exec", result: "Cancelled: changed my mind", isError: true }),
    ]);
    await harness.container.send(textAnswer(5, "too late"));
    expect(harness.logs).toContainEqual(expect.stringContaining("request 5 was cancelled by the client"));
    expect(harness.toolCalls).toHaveLength(1);
  });

  it("cancels a call in the container when the agent's connection goes away before the answer", async () => {
    harness = await openBridgeSession();
    const connection = new AbortController();
    await harness.post(toolCall(6, "write_file"), connection.signal);
    await harness.nextToContainer((message) => message.id === 6);
    connection.abort();
    const cancel = await harness.nextToContainer((message) => message.method === "notifications/cancelled");
    expect(cancel).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 6, reason: CLIENT_GONE_REASON },
    });
    expect(harness.toolCalls).toEqual([
      expect.objectContaining({ tool: "write_file", result: `Cancelled: ${CLIENT_GONE_REASON}`, isError: true }),
    ]);
  });

  it("leaves an answered call alone when the agent's connection goes away afterwards", async () => {
    harness = await openBridgeSession();
    const connection = new AbortController();
    const response = await harness.post(toolCall(8), connection.signal);
    await harness.nextToContainer((message) => message.id === 8);
    await harness.container.send(textAnswer(8, "done"));
    await readMessages(response);
    connection.abort();
    expect(
      harness.toContainer.some((message) => (message as { method?: string }).method === "notifications/cancelled"),
    ).toBe(false);
    expect(harness.toolCalls).toEqual([expect.objectContaining({ result: "done", isError: false })]);
  });
});

describe("BridgeSession ends", () => {
  it("answers every open request with a JSON-RPC error naming the worker when the container side ends, then reports the session closed", async () => {
    harness = await openBridgeSession();
    const response = harness.post(toolCall(7, "build_run"));
    await harness.nextToContainer((message) => message.id === 7);
    await harness.container.close();
    const [answer] = await readMessages(await response);
    expect(answer).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: CONTAINER_GONE_CODE,
        message: expect.stringMatching(/sandbox ended before answering.*GET \/v1\/workers\/w1/),
      },
    });
    expect(harness.toolCalls).toEqual([
      expect.objectContaining({
        tool: "build_run",
        isError: true,
        result: expect.stringMatching(/sandbox ended before answering/),
      }),
    ]);
    await expect.poll(() => harness?.closed).toEqual([harness.session]);
  });

  it("closes the container side when the agent ends the session, once however often it is closed", async () => {
    harness = await openBridgeSession();
    let containerClosed = 0;
    harness.container.onclose = () => {
      containerClosed += 1;
    };
    expect((await harness.request("DELETE")).status).toBe(200);
    await harness.session.close();
    expect(containerClosed).toBe(1);
    expect(harness.closed).toEqual([harness.session]);
  });

  it("counts idle time from the last message in either direction", async () => {
    harness = await openBridgeSession();
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 60_000);
      expect(harness.session.idleMs()).toBeGreaterThanOrEqual(60_000);
      await harness.container.send({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: "still here" },
      });
      expect(harness.session.idleMs()).toBe(0);
      vi.setSystemTime(Date.now() + 30_000);
      await (await harness.post({ jsonrpc: "2.0", method: "notifications/roots/list_changed" })).text();
      expect(harness.session.idleMs()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
