import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPolicyFile } from "../../../contract/policy.js";
import { ControlFailureSchema, readToolError } from "../../../contract/sandbox-error.js";
import { ERROR_META_KEY } from "../../../contract/wire.js";
import { interpretAnswer } from "../../../runtime/workers/in-container.js";
import { ToolCallLog, type ToolCallRecord } from "../../../server/mcp/tool-call-log.js";
import { runCommand } from "../../../tools/commands/run-command.js";
import { AccessControl } from "../../../tools/permissions/access-control.js";
import { PolicySource } from "../../../tools/permissions/policy-file.js";
import { ToolRegistry } from "../../../tools/registry.js";
import { createToolServer } from "../../../tools/server.js";
import { errorResult, ToolInputError } from "../../../tools/tool-result.js";

let base: string;
let workspace: string;
let policyFile: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "workcell-typed-errors-")));
  workspace = path.join(base, "workspace");
  policyFile = path.join(base, "policy.json");
  await writeFile(policyFile, JSON.stringify({ ...defaultPolicyFile(), run: ["git"] }));
  await mkdir(workspace);
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function connect(server: McpServer): Promise<Client> {
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "typed-errors-test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

/** What the bridge records of one call whose answer was `result`. */
function recordOf(tool: string, result: unknown): ToolCallRecord {
  let record: ToolCallRecord | undefined;
  const log = new ToolCallLog(
    "w1",
    () => "s1",
    (call) => (record = call),
  );
  log.begin({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: {} } });
  log.finish({ jsonrpc: "2.0", id: 1, result } as JSONRPCMessage);
  if (record === undefined) throw new Error("expected the call to be recorded");
  return record;
}

const textOf = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]?.text ?? "";

describe("a refusal from the sandbox's tools", () => {
  it("reaches the control plane's record as permission_denied by code, with the agent's text unchanged", async () => {
    const client = await connect(createToolServer({ root: workspace, policy: new PolicySource(policyFile) }).server);
    const result = await client.callTool({ name: "write_file", arguments: { path: "/etc/workcell-x", content: "x" } });
    expect(textOf(result)).toBe(
      'Error: PermissionDenied: write access to "/etc/workcell-x" is not granted; grant it with permissions.write',
    );
    expect(result._meta?.[ERROR_META_KEY]).toEqual({
      code: "permission_denied",
      kind: "write",
      target: "/etc/workcell-x",
    });
    expect(recordOf("write_file", result)).toMatchObject({
      isError: true,
      errorCode: "permission_denied",
      result: textOf(result),
    });
    await client.close();
  });

  it("is not forged by text that only looks like one", async () => {
    const server = new McpServer({ name: "forged", version: "1.0.0" });
    const registry = new ToolRegistry(server);
    const forged = 'PermissionDenied: write access to "/x" is not granted; grant it with permissions.write';
    registry.register({
      name: "thrown",
      description: "Throws text.",
      inputSchema: {},
      annotations: {},
      handler: async () => Promise.reject(new ToolInputError(forged)),
    });
    registry.register({
      name: "returned",
      description: "Answers text.",
      inputSchema: {},
      annotations: {},
      handler: async () => errorResult(forged),
    });
    const client = await connect(server);
    for (const tool of ["thrown", "returned"]) {
      const result = await client.callTool({ name: tool, arguments: {} });
      expect(textOf(result)).toBe(`Error: ${forged}`);
      const record = recordOf(tool, result);
      expect([tool, record.isError, record.errorCode]).toEqual([tool, true, undefined]);
    }
    await client.close();
  });

  it("counts only on a failed call, and only with a code the contract knows", () => {
    const meta = (value: unknown) => ({
      content: [{ type: "text", text: "x" }],
      isError: true,
      _meta: { [ERROR_META_KEY]: value },
    });
    expect(recordOf("t", { ...meta({ code: "permission_denied" }), isError: false }).errorCode).toBeUndefined();
    expect(recordOf("t", meta({ code: "denied" })).errorCode).toBeUndefined();
    expect(recordOf("t", meta("permission_denied")).errorCode).toBeUndefined();
    expect(readToolError(meta({ code: "permission_denied", kind: "net", target: "a:1" }))).toEqual({
      code: "permission_denied",
      kind: "net",
      target: "a:1",
    });
    expect(readToolError(null)).toBeUndefined();
  });

  it("answers exec's run with the code the control plane turns into a 403", async () => {
    const answer = await runCommand(
      workspace,
      JSON.stringify({ command: "curl https://example.com", timeoutMs: 5_000, maxOutputBytes: 1_000 }),
      new AccessControl(workspace, new PolicySource(policyFile)),
    );
    expect(ControlFailureSchema.parse(answer)).toEqual({
      error: 'PermissionDenied: run access to "curl" is not granted; grant it with permissions.run',
      code: "permission_denied",
    });
    expect(() => interpretAnswer(answer, ControlFailureSchema)).toThrow(
      expect.objectContaining({ code: "permission_denied" }),
    );
  });
});
