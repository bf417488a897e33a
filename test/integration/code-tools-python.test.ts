import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestPlane } from "./helpers/control-plane.js";
import { startFixturePlane, stopFixturePlane, type FixturePlane } from "./helpers/fixture-plane.js";

// Python through pyright, and the symbol-aware search where no language service applies;
// code-tools.test.ts covers TypeScript and JavaScript.
let plane: FixturePlane | undefined;
let test: TestPlane;
let spawn: FixturePlane["spawn"];

beforeAll(async () => {
  plane = await startFixturePlane();
  ({ test, spawn } = plane);
});

afterAll(async () => {
  await stopFixturePlane(plane);
});

interface Location {
  path: string;
  line: number;
  isDefinition?: boolean;
}

describe("semantic code tools in the sandbox (the image's TypeScript)", () => {
  it("uses pyright for Python: references across three modules and nothing else, inspect, symbols, rename", async () => {
    const { worker, call } = await spawn("py-inventory");
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
    const { call } = await spawn("py-inventory");
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
