import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { globToRegExp } from "../../../../tools/fs/glob-match.js";
import { selectLines } from "../../../../tools/fs/read-tools.js";
import { registerCallSequenceTool, substituteOutputs } from "../../../../tools/composition/call-sequence-tool.js";
import { ToolRegistry } from "../../../../tools/registry.js";
import { OutputLog } from "../../../../tools/shell/process-manager.js";
import { textResult } from "../../../../tools/tool-result.js";

const context = { signal: new AbortController().signal, sendNotification: async () => undefined };

function registryWithEcho() {
  const registry = new ToolRegistry(new McpServer({ name: "t", version: "1" }));
  registry.register({
    name: "echo",
    description: "echo",
    inputSchema: { text: z.string() },
    annotations: {},
    handler: async ({ text }) => textResult(text),
  });
  registry.register({
    name: "explode",
    description: "throws",
    inputSchema: {},
    annotations: {},
    handler: async () => {
      throw new Error("kaboom");
    },
  });
  registerCallSequenceTool(registry);
  return registry;
}

describe("ToolRegistry", () => {
  it("refuses names that are not snake_case, and duplicates", () => {
    const registry = registryWithEcho();
    const tool = { description: "x", inputSchema: {}, annotations: {}, handler: async () => textResult("") };
    expect(() => registry.register({ ...tool, name: "Bad-Name" })).toThrow(/must match/);
    expect(() => registry.register({ ...tool, name: "echo" })).toThrow(/registered twice/);
  });

  it("turns a throwing tool into an isError result starting with Error:", async () => {
    const result = await registryWithEcho().call("explode", {}, context);
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toBe("Error: kaboom");
  });

  it("validates arguments of in-process calls", async () => {
    const result = await registryWithEcho().call("echo", { text: 5 }, context);
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/^Error: Invalid arguments for echo: text:/);
  });
});

describe("run_pipeline", () => {
  it("passes the previous step's output on, and reports each step", async () => {
    const result = await registryWithEcho().call(
      "run_pipeline",
      {
        steps: [
          { tool: "echo", args: { text: "first" } },
          { tool: "echo", args: { text: "after {{previous}}" } },
          { tool: "echo", args: { text: "{{step:1}}!" } },
        ],
      },
      context,
    );
    expect(result.isError).toBe(false);
    expect((result.structuredContent as { steps: { text: string }[] }).steps.map((s) => s.text)).toEqual([
      "first",
      "after first",
      "first!",
    ]);
  });

  it("stops at the first failure with fail_fast, and runs everything with continue", async () => {
    const steps = [{ tool: "explode" }, { tool: "echo", args: { text: "later" } }];
    const fast = await registryWithEcho().call("run_pipeline", { steps }, context);
    expect(fast.isError).toBe(true);
    expect((fast.structuredContent as { steps: { skipped?: boolean }[] }).steps[1]?.skipped).toBe(true);
    const all = await registryWithEcho().call("run_pipeline", { steps, onError: "continue" }, context);
    expect((all.structuredContent as { steps: { text: string }[] }).steps[1]?.text).toBe("later");
  });

  it("refuses to nest pipelines", async () => {
    const result = await registryWithEcho().call(
      "run_pipeline",
      { steps: [{ tool: "run_pipeline", args: { steps: [] } }] },
      context,
    );
    expect(result.isError).toBe(true);
  });

  it("substitutes deep inside arguments", () => {
    expect(substituteOutputs({ a: ["x {{previous}}"], b: { c: "{{step:2}}" }, n: 3 }, ["one", "two"])).toEqual({
      a: ["x two"],
      b: { c: "two" },
      n: 3,
    });
  });
});

describe("small pure helpers", () => {
  it("globToRegExp matches like .gitignore patterns", () => {
    expect(globToRegExp("node_modules").test("a/node_modules")).toBe(true);
    expect(globToRegExp("**/*.log").test("x/y/z.log")).toBe(true);
    expect(globToRegExp("src/*.ts").test("src/a/b.ts")).toBe(false);
    expect(globToRegExp("*.{js,ts}").test("lib/a.ts")).toBe(true);
  });

  it("selectLines takes head, tail and ranges", () => {
    const text = "a\nb\nc\nd\n";
    expect(selectLines(text, { head: 2 })).toBe("a\nb\n");
    expect(selectLines(text, { tail: 1 })).toBe("d\n");
    expect(selectLines(text, { offset: 2, limit: 2 })).toBe("b\nc\n[lines 2-3 of 4]");
    expect(() => selectLines(text, { head: 1, tail: 1 })).toThrow(/head or tail/);
  });

  it("OutputLog reads by cursor and says how much it dropped", () => {
    const log = new OutputLog(10);
    log.append(Buffer.from("0123456789"));
    expect(log.read(0, 100)).toEqual({ text: "0123456789", next: 10, dropped: 0 });
    log.append(Buffer.from("abcdefghij"));
    const late = log.read(0, 100);
    expect(late.dropped).toBe(10);
    expect(late.text).toBe("abcdefghij");
    expect(log.read(late.next, 100)).toEqual({ text: "", next: 20, dropped: 0 });
  });
});
