import { describe, expect, it } from "vitest";
import { judgeServerMessage } from "../../../../server/mcp/server-methods.js";

const off = { elicitation: false, sampling: false };
const on = { elicitation: true, sampling: true };

describe("judgeServerMessage", () => {
  it("passes responses, which the router matches to open requests", () => {
    expect(judgeServerMessage({ jsonrpc: "2.0", id: 3, result: {} }, off)).toEqual({ pass: true });
    expect(judgeServerMessage({ jsonrpc: "2.0", id: 3, error: { code: -1, message: "x" } }, off)).toEqual({
      pass: true,
    });
  });

  it("passes the notifications an MCP server sends its client", () => {
    for (const method of [
      "notifications/progress",
      "notifications/message",
      "notifications/cancelled",
      "notifications/tools/list_changed",
      "notifications/resources/updated",
    ]) {
      expect(judgeServerMessage({ jsonrpc: "2.0", method, params: {} }, off)).toEqual({ pass: true });
    }
  });

  it("drops unknown notifications, including the tools' own control methods", () => {
    for (const method of [
      "notifications/workcell/admission_release",
      "notifications/initialized",
      "workcell/anything",
      "notifications/tools/call",
    ]) {
      const verdict = judgeServerMessage({ jsonrpc: "2.0", method, params: {} }, on);
      expect(verdict.pass).toBe(false);
      expect(verdict).not.toHaveProperty("answerWith");
    }
  });

  it("passes ping and roots/list, and refuses other requests with an answer for the sandbox", () => {
    expect(judgeServerMessage({ jsonrpc: "2.0", id: 1, method: "ping" }, off)).toEqual({ pass: true });
    expect(judgeServerMessage({ jsonrpc: "2.0", id: 1, method: "roots/list" }, off)).toEqual({ pass: true });
    const refused = judgeServerMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} }, on);
    expect(refused).toMatchObject({ pass: false, answerWith: { code: -32601 } });
  });

  it("passes elicitation and sampling only when the operator enabled each", () => {
    const elicit = { jsonrpc: "2.0" as const, id: 7, method: "elicitation/create", params: { message: "?" } };
    const sample = { jsonrpc: "2.0" as const, id: 8, method: "sampling/createMessage", params: {} };
    expect(judgeServerMessage(elicit, off)).toMatchObject({
      pass: false,
      answerWith: { message: expect.stringContaining("WORKCELL_MCP_ELICITATION=true") },
    });
    expect(judgeServerMessage(sample, off)).toMatchObject({
      pass: false,
      answerWith: { message: expect.stringContaining("WORKCELL_MCP_SAMPLING=true") },
    });
    expect(judgeServerMessage(elicit, { elicitation: true, sampling: false })).toEqual({ pass: true });
    expect(judgeServerMessage(sample, { elicitation: true, sampling: false }).pass).toBe(false);
    expect(judgeServerMessage(sample, { elicitation: false, sampling: true })).toEqual({ pass: true });
  });
});
