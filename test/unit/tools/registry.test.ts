import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolRegistry } from "../../../tools/registry.js";

let client: Client;
let registry: ToolRegistry;

beforeAll(async () => {
  const server = new McpServer({ name: "registry-test", version: "1.0.0" });
  registry = new ToolRegistry(server);
  registry.register({
    name: "read_file",
    description: "Read a file.",
    inputSchema: { path: z.string(), offset: z.number().int().optional(), limit: z.number().int().optional() },
    annotations: { readOnlyHint: true },
    handler: async (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }),
  });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "registry-test-client", version: "1.0.0" });
  await client.connect(clientSide);
});

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as { text: string }[])[0]?.text ?? "";

describe("tool arguments", () => {
  it("refuses a misspelt field by name, with the fields the tool takes, over MCP", async () => {
    const result = await client.callTool({ name: "read_file", arguments: { pathx: "README.md" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('unknown field "pathx"; read_file takes path, offset, limit');
    const extra = await client.callTool({ name: "read_file", arguments: { path: "README.md", limitt: 5 } });
    expect(extra.isError).toBe(true);
    expect(textOf(extra)).toContain('unknown field "limitt"; read_file takes path, offset, limit');
  });

  it("refuses it the same way in-process, and passes well-formed arguments through", async () => {
    const refused = await registry.call("read_file", { pathx: "a", limitt: 1 }, {
      signal: new AbortController().signal,
      sendNotification: async () => undefined,
    } as never);
    expect(textOf(refused)).toContain('unknown fields "pathx", "limitt"; read_file takes path, offset, limit');
    const ok = await client.callTool({ name: "read_file", arguments: { path: "README.md", limit: 2 } });
    expect(textOf(ok)).toBe('{"path":"README.md","limit":2}');
  });

  it("says in the published schema that no other field is accepted", async () => {
    const { tools } = await client.listTools();
    expect(tools[0]?.inputSchema).toMatchObject({ type: "object", required: ["path"], additionalProperties: false });
  });
});
