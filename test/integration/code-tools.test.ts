import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestPlane } from "./helpers/control-plane.js";
import { startFixturePlane, stopFixturePlane, type FixturePlane } from "./helpers/fixture-plane.js";
import { git } from "./helpers/test-repo.js";

// TypeScript and JavaScript projects; code-tools-python.test.ts covers pyright and the fallback search.
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
  it("renames a class used in 23 files: preview first, then every reference and import, strings and comments untouched, and code_validate passes", async () => {
    const { worker, call } = await spawn("ts-shapes");
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
    const { worker, call } = await spawn("js-cart");
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
});

describe("the repository a worker came from", () => {
  it("is untouched by the worker's refactors", async () => {
    const { repo, client } = await spawn("ts-shapes");
    await client.callTool({
      name: "code_refactor",
      arguments: { operation: "rename", filePath: "src/shape.ts", symbolName: "describeShape", newName: "explain" },
    });
    expect(git(repo, "status", "--porcelain")).toBe("");
  });
});
