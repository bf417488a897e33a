import { afterEach, describe, expect, it } from "vitest";
import { ADMISSION_METHOD, ADMISSION_POSITION, ADMISSION_RELEASE, APPROVAL_METHOD } from "../../../../contract/wire.js";
import type { AdmissionHandler, ApprovalHandler } from "../../../../server/mcp/bridge-session.js";
import { SESSION_CLOSED } from "../../../../server/mcp/bridge-session.js";
import { createDeferred, openBridgeSession, readMessages, type BridgeHarness } from "./bridge-harness.js";

let harness: BridgeHarness | undefined;

afterEach(async () => {
  await harness?.session.close();
  harness = undefined;
});

const approvalRequest = (id: string) => ({
  jsonrpc: "2.0" as const,
  id,
  method: APPROVAL_METHOD,
  params: { tool: "write_file", args: { path: "a.txt" } },
});
const admissionRequest = (id: string) => ({
  jsonrpc: "2.0" as const,
  id,
  method: ADMISSION_METHOD,
  params: { key: `key-${id}`, tool: "build_run" },
});

describe("BridgeSession approvals", () => {
  it("answers the container's approval request with the control plane's decision, and the agent never sees the request", async () => {
    const asked: Parameters<ApprovalHandler>[0][] = [];
    harness = await openBridgeSession({
      onApprovalRequest: async (request) => {
        asked.push(request);
        return { decision: "approve" };
      },
    });
    const call = harness.post({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "write_file", arguments: { path: "a.txt" } },
    });
    await harness.nextToContainer((message) => message.id === 1);
    await harness.container.send(approvalRequest("ap-1"));
    expect(await harness.nextToContainer((message) => message.id === "ap-1")).toEqual({
      jsonrpc: "2.0",
      id: "ap-1",
      result: { decision: "approve" },
    });
    expect(asked).toEqual([
      {
        workerId: "w1",
        sessionId: harness.sessionId,
        params: { tool: "write_file", args: { path: "a.txt" } },
        signal: expect.any(AbortSignal),
      },
    ]);
    await harness.container.send({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "written" }] } });
    expect(await readMessages(await call)).toEqual([
      { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "written" }] } },
    ]);
  });

  it("answers with a JSON-RPC error carrying the reason when the decision fails, or when the control plane takes no approvals", async () => {
    harness = await openBridgeSession({
      onApprovalRequest: async () => Promise.reject(new Error("the reviewer queue is full")),
    });
    await harness.container.send(approvalRequest("ap-2"));
    expect(await harness.nextToContainer((message) => message.id === "ap-2")).toEqual({
      jsonrpc: "2.0",
      id: "ap-2",
      error: { code: -32603, message: "the reviewer queue is full" },
    });
    await harness.session.close();
    harness = await openBridgeSession();
    await harness.container.send(approvalRequest("ap-3"));
    expect(await harness.nextToContainer((message) => message.id === "ap-3")).toMatchObject({
      id: "ap-3",
      error: { code: -32603, message: "approvals are not available on this control plane" },
    });
  });

  it("stops waiting for a decision when the container cancels the request, and when the session ends (with session_closed)", async () => {
    const signals: AbortSignal[] = [];
    harness = await openBridgeSession({
      onApprovalRequest: ({ signal }) => {
        signals.push(signal);
        return new Promise(() => undefined);
      },
    });
    await harness.container.send(approvalRequest("ap-4"));
    await harness.container.send(approvalRequest("ap-5"));
    await harness.container.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "ap-4" } });
    expect(signals.map((signal) => signal.aborted)).toEqual([true, false]);
    await harness.session.close();
    expect(signals[1]?.aborted).toBe(true);
    expect(signals[1]?.reason).toBe(SESSION_CLOSED);
  });
});

describe("BridgeSession admissions", () => {
  it("grants an unmetered ticket at once when the control plane meters nothing", async () => {
    harness = await openBridgeSession();
    await harness.container.send(admissionRequest("ad-1"));
    expect(await harness.nextToContainer((message) => message.id === "ad-1")).toEqual({
      jsonrpc: "2.0",
      id: "ad-1",
      result: { ticket: "unmetered" },
    });
  });

  it("passes queue positions to the container, answers a ticket, and gives the slot back when the container releases it", async () => {
    const slot = createDeferred<() => void>();
    const released: string[] = [];
    let position: ((value: number) => void) | undefined;
    harness = await openBridgeSession({
      onAdmissionRequest: (request) => {
        expect(request).toMatchObject({ workerId: "w1", tool: "build_run" });
        position = request.onPosition;
        return slot.promise;
      },
    });
    await harness.container.send(admissionRequest("ad-2"));
    position?.(3);
    expect(await harness.nextToContainer((message) => message.method === ADMISSION_POSITION)).toEqual({
      jsonrpc: "2.0",
      method: ADMISSION_POSITION,
      params: { key: "key-ad-2", position: 3 },
    });
    slot.resolve(() => released.push("ad-2"));
    const granted = (await harness.nextToContainer((message) => message.id === "ad-2")) as unknown as {
      result: { ticket: string };
    };
    expect(granted.result.ticket).toMatch(/^[0-9a-f-]{36}$/);
    expect(released).toEqual([]);
    await harness.container.send({
      jsonrpc: "2.0",
      method: ADMISSION_RELEASE,
      params: { ticket: granted.result.ticket },
    });
    expect(released).toEqual(["ad-2"]);
    await harness.session.close();
    expect(released).toEqual(["ad-2"]);
  });

  it("answers a refused admission with a JSON-RPC error carrying the reason", async () => {
    harness = await openBridgeSession({
      onAdmissionRequest: async () => Promise.reject(new Error("the host queue is closed")),
    });
    await harness.container.send(admissionRequest("ad-3"));
    expect(await harness.nextToContainer((message) => message.id === "ad-3")).toEqual({
      jsonrpc: "2.0",
      id: "ad-3",
      error: { code: -32603, message: "the host queue is closed" },
    });
  });

  it("gives back every slot it holds and stops every wait when the session ends; a slot granted later goes straight back", async () => {
    const released: string[] = [];
    const signals: AbortSignal[] = [];
    const late = createDeferred<() => void>();
    let calls = 0;
    const handler: AdmissionHandler = async ({ signal }) => {
      calls += 1;
      signals.push(signal);
      if (calls === 1) return () => released.push("held");
      return late.promise;
    };
    harness = await openBridgeSession({ onAdmissionRequest: handler });
    await harness.container.send(admissionRequest("ad-4"));
    await harness.nextToContainer((message) => message.id === "ad-4");
    await harness.container.send(admissionRequest("ad-5"));
    await harness.session.close();
    expect(released).toEqual(["held"]);
    expect(signals[1]?.aborted).toBe(true);
    late.resolve(() => released.push("late"));
    await expect.poll(() => released).toEqual(["held", "late"]);
  });

  it("stops waiting for a slot when the container cancels its admission request", async () => {
    const signals: AbortSignal[] = [];
    harness = await openBridgeSession({
      onAdmissionRequest: ({ signal }) => {
        signals.push(signal);
        return new Promise(() => undefined);
      },
    });
    await harness.container.send(admissionRequest("ad-6"));
    await harness.container.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "ad-6" } });
    expect(signals[0]?.aborted).toBe(true);
  });
});
