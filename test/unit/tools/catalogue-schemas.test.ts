import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { registerOrchestratorTools, type OrchestratorDeps } from "../../../server/orchestrator/orchestrator-tools.js";
import { createToolServer } from "../../../tools/server.js";

/**
 * What strict clients refuse in a tool schema (the MCP Inspector's `--strict` check, and
 * clients that validate `tools/list` themselves): a boolean or type-less schema, a `type`
 * that is an array, and references they would have to resolve.
 */
function strictProblems(schema: unknown, at: string): string[] {
  if (typeof schema === "boolean") return [`${at} is the boolean schema ${schema}`];
  if (schema === null || typeof schema !== "object") return [`${at} is not a schema`];
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  const combined = ["anyOf", "oneOf"].filter((key) => Array.isArray(node[key]));
  if (Array.isArray(node.type)) problems.push(`${at} has a type array ${JSON.stringify(node.type)}`);
  else if (
    typeof node.type !== "string" &&
    combined.length === 0 &&
    node.enum === undefined &&
    node.const === undefined
  ) {
    problems.push(`${at} has no type: ${JSON.stringify(node)}`);
  }
  for (const key of ["$ref", "$defs", "definitions"]) if (key in node) problems.push(`${at} uses ${key}`);
  for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, unknown>))
    problems.push(...strictProblems(property, `${at}.properties.${name}`));
  if (node.items !== undefined) problems.push(...strictProblems(node.items, `${at}.items`));
  if (node.additionalProperties !== undefined && node.additionalProperties !== false)
    problems.push(...strictProblems(node.additionalProperties, `${at}.additionalProperties`));
  for (const key of combined)
    (node[key] as unknown[]).forEach((branch, index) =>
      problems.push(...strictProblems(branch, `${at}.${key}[${index}]`)),
    );
  return problems;
}

/** Lists a server's tools the way a client sees them, with the problems a strict client finds. */
async function listedProblems(server: McpServer): Promise<{ count: number; problems: string[] }> {
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "strict-check", version: "1.0.0" });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  await client.close();
  const problems = tools.flatMap((tool) => [
    ...strictProblems(tool.inputSchema, `${tool.name}.inputSchema`),
    ...(tool.outputSchema === undefined ? [] : strictProblems(tool.outputSchema, `${tool.name}.outputSchema`)),
  ]);
  return { count: tools.length, problems };
}

describe("the published tool schemas", () => {
  it("pass a strict client's check in a worker: every node typed, no boolean schemas, no type arrays, no references", async () => {
    const { server } = createToolServer({ root: mkdtempSync(join(tmpdir(), "workcell-schemas-")) });
    const { count, problems } = await listedProblems(server);
    expect(count).toBeGreaterThan(30);
    expect(problems).toEqual([]);
  });

  it("pass it on the orchestrator's endpoint too", async () => {
    const server = new McpServer({ name: "orchestrator-schemas", version: "1.0.0" });
    // Listing tools calls none of them, so nothing behind them is needed.
    registerOrchestratorTools(server, { workers: {} } as OrchestratorDeps);
    const { count, problems } = await listedProblems(server);
    expect(count).toBeGreaterThan(8);
    expect(problems).toEqual([]);
  });

  it("still lets run_pipeline pass any arguments through to a step", async () => {
    const root = mkdtempSync(join(tmpdir(), "workcell-schemas-"));
    const { registry } = createToolServer({ root });
    const context = { signal: new AbortController().signal, sendNotification: async () => undefined } as never;
    const result = await registry.call(
      "run_pipeline",
      {
        steps: [
          { tool: "write_file", args: { path: "a.txt", content: "hi" } },
          { tool: "read_file", args: { path: "a.txt" } },
        ],
      },
      context,
    );
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain("hi");
  });
});
