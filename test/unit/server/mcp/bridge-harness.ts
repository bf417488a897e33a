import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { vi } from "vitest";
import {
  BridgeSession,
  type BridgeSessionOptions,
  type ToolCallRecord,
} from "../../../../server/mcp/bridge-session.js";

/** A bridge session between raw HTTP requests (the agent) and a scripted in-memory container. */
export interface BridgeHarness {
  readonly session: BridgeSession;
  /** The container's end of the stdio link: the test speaks for the in-container server through it. */
  readonly container: InMemoryTransport;
  /** Every message the bridge sent to the container, in order. */
  readonly toContainer: JSONRPCMessage[];
  readonly logs: string[];
  readonly toolCalls: ToolCallRecord[];
  /** Sessions reported closed through onClosed. */
  readonly closed: BridgeSession[];
  /** The session id the agent was given at initialize. */
  readonly sessionId: string;
  /** POSTs one message (or a batch) in the session, as the worker bridge does: the body parsed once. */
  post(body: unknown, signal?: AbortSignal): Promise<Response>;
  /** Sends a request of the session that is not a POST (GET, DELETE). */
  request(method: "GET" | "DELETE"): Promise<Response>;
  /** Waits for the bridge to send the container a message that matches. */
  nextToContainer(
    match: (message: JSONRPCMessage & { id?: RequestId; method?: string; params?: Record<string, unknown> }) => boolean,
  ): Promise<JSONRPCMessage>;
}

const URL_ = "http://bridge.test/v1/workers/w1/mcp";

/** The JSON-RPC messages of a finished SSE (or JSON) response body. */
export async function readMessages(response: Response): Promise<JSONRPCMessage[]> {
  const text = await response.text();
  if (response.headers.get("content-type")?.includes("application/json"))
    return [JSON.parse(text) as JSONRPCMessage].flat();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data:") && line.slice(5).trim() !== "")
    .map((line) => JSON.parse(line.slice(5)) as JSONRPCMessage);
}

function headersFor(sessionId: string | undefined): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(sessionId === undefined
      ? {}
      : { "mcp-session-id": sessionId, "mcp-protocol-version": LATEST_PROTOCOL_VERSION }),
  };
}

/**
 * Opens a session for worker w1 and initializes it: the scripted container answers
 * `initialize` by itself; every other message waits for the test to answer it.
 */
export async function openBridgeSession(options: Partial<BridgeSessionOptions> = {}): Promise<BridgeHarness> {
  const [bridgeSide, container] = InMemoryTransport.createLinkedPair();
  const toContainer: JSONRPCMessage[] = [];
  const logs: string[] = [];
  const toolCalls: ToolCallRecord[] = [];
  const closed: BridgeSession[] = [];
  container.onmessage = (message) => {
    toContainer.push(message);
    const request = message as { id?: RequestId; method?: string };
    if (request.method === "initialize" && request.id !== undefined) {
      void container.send({
        jsonrpc: "2.0",
        id: request.id,
        result: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: { tools: {} },
          serverInfo: { name: "scripted", version: "1" },
        },
      });
    }
  };
  await container.start();
  const session = new BridgeSession("w1", bridgeSide, {
    onInitialized: () => undefined,
    onClosed: (ended) => closed.push(ended),
    log: (line) => logs.push(line),
    maxBodyBytes: 1024 * 1024,
    onToolCall: (call) => toolCalls.push(call),
    ...options,
  });
  await session.start();
  const post = (body: unknown, sessionId: string | undefined, signal?: AbortSignal) =>
    session.handle(
      new Request(URL_, {
        method: "POST",
        headers: headersFor(sessionId),
        body: JSON.stringify(body),
        ...(signal === undefined ? {} : { signal }),
      }),
      body,
    );
  const initialize = {
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "test", version: "1" } },
  };
  const initialized = await post(initialize, undefined);
  const sessionId = initialized.headers.get("mcp-session-id");
  if (sessionId === null)
    throw new Error(`initialize answered ${initialized.status} without a session id: ${await initialized.text()}`);
  await initialized.text();
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, sessionId);
  return {
    session,
    container,
    toContainer,
    logs,
    toolCalls,
    closed,
    sessionId,
    post: (body, signal) => post(body, sessionId, signal),
    request: (method) =>
      session.handle(new Request(URL_, { method, headers: { ...headersFor(sessionId), accept: "text/event-stream" } })),
    nextToContainer: (match) =>
      vi.waitFor(() => {
        const found = toContainer.find((message) => match(message as never));
        if (found === undefined) throw new Error("the container has not received the message yet");
        return found;
      }),
  };
}

/** A promise with its resolve and reject in hand. */
export function createDeferred<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
