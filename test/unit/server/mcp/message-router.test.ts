import { describe, expect, it } from "vitest";
import { MessageRouter } from "../../../../server/mcp/message-router.js";

const request = (id: number, token?: string) => ({
  jsonrpc: "2.0" as const,
  id,
  method: "tools/call",
  params: { name: "x", ...(token === undefined ? {} : { _meta: { progressToken: token } }) },
});

describe("MessageRouter", () => {
  it("routes responses by id and forgets the request afterwards", () => {
    const router = new MessageRouter();
    router.fromClient(request(1));
    expect(router.toClient({ jsonrpc: "2.0", id: 1, result: {} })).toEqual({ kind: "response" });
    expect(router.openRequests()).toEqual([]);
    expect(router.toClient({ jsonrpc: "2.0", id: 1, result: {} }).kind).toBe("drop");
  });

  it("routes progress to the request that carries the token, even with several open", () => {
    const router = new MessageRouter();
    router.fromClient(request(1, "a"));
    router.fromClient(request(2, "b"));
    expect(
      router.toClient({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "b", progress: 1 },
      }),
    ).toEqual({ kind: "related", requestId: 2 });
    expect(
      router.toClient({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "zzz", progress: 1 },
      }).kind,
    ).toBe("drop");
  });

  it("relates server-initiated messages to the only open request, else uses the standalone stream", () => {
    const router = new MessageRouter();
    const elicit = { jsonrpc: "2.0" as const, id: 99, method: "elicitation/create", params: {} };
    expect(router.toClient(elicit)).toEqual({ kind: "standalone" });
    router.fromClient(request(1));
    expect(router.toClient(elicit)).toEqual({ kind: "related", requestId: 1 });
    router.fromClient(request(2));
    expect(router.toClient(elicit)).toEqual({ kind: "standalone" });
  });

  it("drops a late response to a request the client cancelled", () => {
    const router = new MessageRouter();
    router.fromClient(request(7, "t"));
    router.fromClient({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } });
    expect(router.openRequests()).toEqual([]);
    expect(router.toClient({ jsonrpc: "2.0", id: 7, result: {} })).toMatchObject({ kind: "drop" });
  });

  it("does not treat the client's answers to server requests as open requests", () => {
    const router = new MessageRouter();
    router.fromClient({ jsonrpc: "2.0", id: 99, result: { action: "accept" } });
    expect(router.openRequests()).toEqual([]);
  });
});
