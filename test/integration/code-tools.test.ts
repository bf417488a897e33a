import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createRepoFromFixture, createTempDir, git } from "./helpers/test-repo.js";

let test: TestPlane;
const spawned: string[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  test = await startTestPlane();
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

async function workerOn(fixture: string): Promise<{
  worker: ApiWorker;
  call: (
    name: string,
    args?: Record<string, unknown>,
  ) => Promise<{ text: string; data: Record<string, unknown>; isError: boolean }>;
}> {
  const repo = await createRepoFromFixture(await createTempDir("workcell-code-"), fixture);
  const worker = await spawnOn(test, repo);
  spawned.push(worker.id);
  const { client } = await test.connect(worker.mcpUrl);
  clients.push(client);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    return {
      text: textOf(result),
      data: (result.structuredContent ?? {}) as Record<string, unknown>,
      isError: result.isError === true,
    };
  };
  return { worker, call };
}

interface Location {
  path: string;
  line: number;
  isDefinition?: boolean;
}

describe("semantic code tools in the sandbox (the image's TypeScript)", () => {
  it("renames a class used in 23 files: preview first, then every reference and import, strings and comments untouched, and code_validate passes", async () => {
    const { worker, call } = await workerOn("ts-shapes");
    const exec = (command: string) =>
      test.api<{ stdout: string }>("POST", `/v1/workers/${worker.id}/exec`, { command });

    const preview = await call("code_refactor", {
      operation: "rename",
      filePath: "src/shape.ts",
      symbolName: "Shape",
      newName: "Figure",
      preview: true,
    });
    expect(preview.isError, preview.text).toBe(false);
    expect((preview.data.files as unknown[]).length).toBe(23);
    expect((await exec("git status --porcelain")).body.stdout).toBe("");

    const renamed = await call("code_refactor", {
      operation: "rename",
      filePath: "src/shape.ts",
      symbolName: "Shape",
      newName: "Figure",
    });
    expect(renamed.isError, renamed.text).toBe(false);
    expect((await exec("git status --porcelain | wc -l")).body.stdout.trim()).toBe("23");
    // What stays: per shape file a comment and a string; in shape.ts two comments, a template string and the @example.
    expect((await exec("grep -rhow 'Shape' src | wc -l")).body.stdout.trim()).toBe(String(19 * 2 + 4));
    expect((await exec("grep -c 'new Figure(\"circle\", size)' src/shapes/circle.ts")).body.stdout.trim()).toBe("1");

    const validation = await call("code_validate");
    expect(validation.data, validation.text).toMatchObject({ success: true, language: "typescript" });

    // The project stays warm: a navigate call after the rename sees the new name at once.
    const references = await call("code_navigate", { operation: "references", symbolName: "Figure", limit: 500 });
    expect(new Set((references.data.locations as Location[]).map((location) => location.path)).size).toBe(23);
    const inspected = await call("code_inspect", { filePath: "src/report.ts", symbolName: "totalArea" });
    expect(inspected.data).toMatchObject({
      heuristic: false,
      kind: "function",
      signature: "function totalArea(shapes: Figure[]): number",
    });

    // implement_interface writes members that compile.
    await call("write_file", {
      path: "src/sketch.ts",
      content: 'import type { Drawable } from "./shape";\n\nexport class Sketch implements Drawable {}\n',
    });
    expect((await call("code_validate")).data).toMatchObject({ success: false });
    const implemented = await call("code_generate", {
      operation: "implement_interface",
      filePath: "src/sketch.ts",
      symbolName: "Sketch",
    });
    expect(implemented.isError, implemented.text).toBe(false);
    expect((await exec("cat src/sketch.ts")).body.stdout).toMatch(/draw\(\): string \{/);
    const revalidated = await call("code_validate");
    expect(revalidated.data, revalidated.text).toMatchObject({ success: true });

    // move_symbol_to_file: a function imported by 21 files moves to a new file in another directory.
    const moved = await call("code_refactor", {
      operation: "move_symbol_to_file",
      filePath: "src/shape.ts",
      symbolName: "describeShape",
      targetFile: "src/text/describe.ts",
    });
    expect(moved.isError, moved.text).toBe(false);
    expect((await exec("cat src/text/describe.ts")).body.stdout).toMatch(
      /export function describeShape\(shape: Figure\)/,
    );
    // Every file that imported it from ./shape now imports it from its new home (index.ts may re-export through shape.ts).
    const importing = (await exec("grep -rl 'text/describe\"' src")).body.stdout.trim().split("\n").sort();
    expect(importing.filter((file) => file.startsWith("src/shapes/"))).toHaveLength(19);
    expect(importing).toContain("src/report.ts");
    const afterMove = await call("code_validate");
    expect(afterMove.data, afterMove.text).toMatchObject({ success: true });
  });

  it("extracts a function from JavaScript with the tests still green, and writes a test skeleton that runs", async () => {
    const { worker, call } = await workerOn("js-cart");
    const extracted = await call("code_refactor", {
      operation: "extract_function",
      filePath: "src/cart.js",
      startLine: 4,
      endLine: 7,
      newName: "subtotalOf",
    });
    expect(extracted.isError, extracted.text).toBe(false);
    const cart = (
      await test.api<{ stdout: string }>("POST", `/v1/workers/${worker.id}/exec`, { command: "cat src/cart.js" })
    ).body.stdout;
    expect(cart).toMatch(/function subtotalOf\(items\)/);
    expect(cart).toMatch(/subtotalOf\(items\)/);
    expect((await call("test_run")).data).toMatchObject({ success: true, passed: 2, failed: 0 });

    const skeleton = await call("code_generate", { operation: "test_skeleton", filePath: "src/money.js" });
    expect(skeleton.data.files).toEqual([{ path: "test/money.test.js", created: true }]);
    expect((await call("test_run")).data).toMatchObject({ success: true, passed: 4, failed: 0 });
  });

  it("uses pyright for Python: references across three modules and nothing else, inspect, symbols, rename", async () => {
    const { worker, call } = await workerOn("py-inventory");
    const references = await call("code_navigate", {
      operation: "references",
      filePath: "inventory/pricing.py",
      symbolName: "total_price",
    });
    expect(references.data.heuristic).toBe(false);
    const locations = references.data.locations as Location[];
    // total_price_with_tax and the test module (which never uses total_price) are not matches.
    expect(locations.map((location) => `${location.path}:${location.line}`)).toEqual([
      "inventory/cart.py:1",
      "inventory/cart.py:12",
      "inventory/pricing.py:6",
      "inventory/pricing.py:12",
      "inventory/report.py:5",
    ]);
    expect(locations.filter((location) => location.isDefinition).map((location) => location.path)).toEqual([
      "inventory/pricing.py",
    ]);

    const definition = await call("code_navigate", {
      operation: "definition",
      filePath: "inventory/cart.py",
      line: 12,
      column: 16,
    });
    expect(definition.data).toMatchObject({
      heuristic: false,
      locations: [expect.objectContaining({ path: "inventory/pricing.py", line: 6 })],
    });

    // By name alone, as an agent asks first: pyright still answers, from the declaration.
    const byName = await call("code_navigate", { operation: "references", symbolName: "total_price" });
    expect(byName.data.heuristic).toBe(false);
    expect((byName.data.locations as Location[]).map((location) => `${location.path}:${location.line}`)).toEqual(
      locations.map((location) => `${location.path}:${location.line}`),
    );
    const definitionByName = await call("code_navigate", { operation: "definition", symbolName: "Cart" });
    expect(definitionByName.data).toMatchObject({
      heuristic: false,
      locations: [expect.objectContaining({ path: "inventory/cart.py" })],
    });
    const workspaceSymbols = await call("code_navigate", { operation: "workspace_symbols", symbolName: "total_price" });
    expect((workspaceSymbols.data.locations as Location[]).map((location) => location.path)).toContain(
      "inventory/pricing.py",
    );

    const symbols = await call("code_navigate", { operation: "document_symbols", filePath: "inventory/cart.py" });
    expect((symbols.data.locations as { name: string }[]).map((symbol) => symbol.name)).toEqual([
      "Cart",
      "Cart.__init__",
      "Cart.add",
      "Cart.total",
    ]);

    const inspected = await call("code_inspect", { filePath: "inventory/pricing.py", symbolName: "total_price" });
    expect(inspected.data).toMatchObject({
      heuristic: false,
      kind: "function",
      documentation: "The sum of price * quantity over (price, quantity) pairs.",
    });
    expect(inspected.data.signature).toMatch(/def total_price\(items/);

    const preview = await call("code_refactor", {
      operation: "rename",
      filePath: "inventory/pricing.py",
      symbolName: "total_price",
      newName: "grand_total",
      preview: true,
    });
    expect((preview.data.files as { path: string }[]).map((file) => file.path).sort()).toEqual([
      "inventory/cart.py",
      "inventory/pricing.py",
      "inventory/report.py",
    ]);
    const renamed = await call("code_refactor", {
      operation: "rename",
      filePath: "inventory/pricing.py",
      symbolName: "total_price",
      newName: "grand_total",
    });
    expect(renamed.isError, renamed.text).toBe(false);
    const grep = await test.api<{ stdout: string }>("POST", `/v1/workers/${worker.id}/exec`, {
      command: "grep -rn 'total_price\\b' inventory tests || true",
    });
    expect(grep.body.stdout).toBe("");

    const skeleton = await call("code_generate", { operation: "test_skeleton", filePath: "inventory/report.py" });
    expect(skeleton.data.files).toEqual([{ path: "tests/test_report.py", created: true }]);
    expect((await call("test_run")).data).toMatchObject({ success: true, passed: 3, failed: 0 });

    const refused = await call("code_refactor", {
      operation: "extract_function",
      filePath: "inventory/cart.py",
      startLine: 12,
      endLine: 12,
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/code_edit or edit_file/);
  });

  it("falls back to a symbol-aware search where no language service applies, and says so", async () => {
    const { call } = await workerOn("py-inventory");
    await call("write_file", {
      path: "tools/main.go",
      content: "package main\n\nfunc helper() int { return 1 }\n\nfunc main() { _ = helper() }\n",
    });
    const definition = await call("code_navigate", {
      operation: "definition",
      filePath: "tools/main.go",
      line: 5,
      column: 19,
    });
    expect(definition.data).toMatchObject({
      heuristic: true,
      locations: [expect.objectContaining({ path: "tools/main.go", line: 3 })],
    });
    const references = await call("code_navigate", {
      operation: "references",
      filePath: "tools/main.go",
      symbolName: "helper",
    });
    expect((references.data.locations as Location[]).map((location) => location.line)).toEqual([3, 5]);
    const refused = await call("code_refactor", {
      operation: "rename",
      filePath: "tools/main.go",
      symbolName: "helper",
      newName: "assist",
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/code_edit or edit_file/);
  });
});

describe("the repository a worker came from", () => {
  it("is untouched by the worker's refactors", async () => {
    const repo = await createRepoFromFixture(await createTempDir("workcell-code-src-"), "ts-shapes");
    const worker = await spawnOn(test, repo);
    spawned.push(worker.id);
    const { client } = await test.connect(worker.mcpUrl);
    clients.push(client);
    await client.callTool({
      name: "code_refactor",
      arguments: { operation: "rename", filePath: "src/shape.ts", symbolName: "describeShape", newName: "explain" },
    });
    expect(git(repo, "status", "--porcelain")).toBe("");
  });
});
