import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createToolServer } from "../../../../tools/server.js";
import type { ToolRegistry } from "../../../../tools/registry.js";

const FIXTURE = path.resolve("test", "fixtures", "projects", "ts-shapes");
let root: string;
let registry: ToolRegistry;

const context = { signal: new AbortController().signal, sendNotification: async () => undefined };

async function call(
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; data: Record<string, unknown>; isError: boolean }> {
  const result: CallToolResult = await registry.call(name, args, context);
  const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  return { text, data: (result.structuredContent ?? {}) as Record<string, unknown>, isError: result.isError === true };
}

interface Location {
  path: string;
  line: number;
  column: number;
  text: string;
  isDefinition?: boolean;
  kind?: string;
  name?: string;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "workcell-code-tools-"));
  await cp(FIXTURE, root, { recursive: true });
  ({ registry } = createToolServer({ root }));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("code_navigate on TypeScript (language service)", () => {
  it("finds the definition of a symbol named in a file that uses it", async () => {
    const answer = await call("code_navigate", {
      operation: "definition",
      filePath: "src/report.ts",
      symbolName: "describeShape",
    });
    expect(answer.data.heuristic).toBe(false);
    expect(answer.data.locations).toEqual([
      expect.objectContaining({
        path: "src/shape.ts",
        line: 27,
        column: 17,
        text: expect.stringContaining("export function describeShape"),
      }),
    ]);
  });

  it("lists every reference to a class across the project, and not the word in strings or comments", async () => {
    const answer = await call("code_navigate", { operation: "references", symbolName: "Shape", limit: 500 });
    const locations = answer.data.locations as Location[];
    const files = new Set(locations.map((location) => location.path));
    expect(files.size).toBe(23);
    expect(locations.filter((location) => location.isDefinition)).toHaveLength(1);
    expect(locations.some((location) => location.text.includes('"Shape: '))).toBe(false);
    // Each shape file: the import, the extends clause, the return type, the annotation and the fallback `new Shape`.
    expect(locations.filter((location) => location.path === "src/shapes/circle.ts")).toHaveLength(5);
  });

  it("finds implementations of an interface and callers of a function", async () => {
    const implementations = await call("code_navigate", {
      operation: "implementations",
      filePath: "src/shape.ts",
      symbolName: "Drawable",
      limit: 100,
    });
    // The two classes that implement it, and the 19 that inherit the implementation.
    const implementing = (implementations.data.locations as Location[]).map((location) => location.path);
    expect(implementing).toEqual(expect.arrayContaining(["src/canvas.ts", "src/shape.ts", "src/shapes/circle.ts"]));
    expect(implementing).toHaveLength(21);
    const callers = await call("code_navigate", {
      operation: "callers",
      filePath: "src/shape.ts",
      symbolName: "describeShape",
      limit: 100,
    });
    const from = (callers.data.locations as Location[]).map((location) => location.path);
    expect(from).toContain("src/report.ts");
    expect(from.filter((file) => file.startsWith("src/shapes/"))).toHaveLength(19);
  });

  it("lists a file's symbols and searches the workspace's", async () => {
    const symbols = await call("code_navigate", { operation: "document_symbols", filePath: "src/shape.ts" });
    expect((symbols.data.locations as Location[]).map((location) => location.name)).toEqual(
      expect.arrayContaining(["Drawable", "Drawable.draw", "Shape", "Shape.area", "describeShape"]),
    );
    const search = await call("code_navigate", { operation: "workspace_symbols", symbolName: "makeHex" });
    expect((search.data.locations as Location[]).map((location) => location.name)).toContain("makeHexagon");
  });

  it("resolves line and column to the symbol there", async () => {
    const answer = await call("code_navigate", {
      operation: "definition",
      filePath: "src/untidy.ts",
      line: 5,
      column: 22,
    });
    expect(answer.data.locations).toEqual([
      expect.objectContaining({ path: "src/report.ts", text: expect.stringContaining("export function totalArea") }),
    ]);
  });

  it("answers clearly when the symbol is not there", async () => {
    const answer = await call("code_navigate", {
      operation: "definition",
      filePath: "src/report.ts",
      symbolName: "Nope",
    });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/No symbol named "Nope" in src\/report\.ts/);
  });
});

describe("code_inspect", () => {
  it("gives a class's kind, signature, doc comment, members and declaration", async () => {
    const answer = await call("code_inspect", { filePath: "src/shapes/circle.ts", symbolName: "Shape" });
    expect(answer.data).toMatchObject({
      heuristic: false,
      name: "Shape",
      signature: expect.stringContaining("Shape"),
      documentation: "The base of every shape: a name and an area.",
    });
    expect(answer.data.members).toEqual(
      expect.arrayContaining([
        { name: "area", kind: "method", type: "() => number" },
        { name: "name", kind: "property", type: "string" },
      ]),
    );
    expect(answer.data.declaredAt).toEqual([expect.objectContaining({ path: "src/shape.ts", line: 10 })]);
    expect(answer.data.tags).toEqual([{ name: "example", text: 'new Shape("unit", 1)' }]);
  });
});

describe("code_refactor", () => {
  it("previews a rename as a diff without touching a file", async () => {
    const before = await readFile(path.join(root, "src/shapes/circle.ts"), "utf8");
    const answer = await call("code_refactor", {
      operation: "rename",
      filePath: "src/shape.ts",
      symbolName: "Shape",
      newName: "Figure",
      preview: true,
    });
    expect(answer.isError, answer.text).toBe(false);
    expect((answer.data.files as unknown[]).length).toBe(23);
    expect(answer.text).toContain("-export class Shape implements Drawable {");
    expect(answer.text).toContain("+export class Figure implements Drawable {");
    expect(await readFile(path.join(root, "src/shapes/circle.ts"), "utf8")).toBe(before);
  });

  it("renames a class in every file that uses it, leaving strings and comments alone", async () => {
    const answer = await call("code_refactor", {
      operation: "rename",
      filePath: "src/shape.ts",
      symbolName: "Shape",
      newName: "Figure",
    });
    expect(answer.isError, answer.text).toBe(false);
    expect((answer.data.files as unknown[]).length).toBe(23);
    const circle = await readFile(path.join(root, "src/shapes/circle.ts"), "utf8");
    expect(circle).toContain('import { Figure, describeShape } from "../shape";');
    expect(circle).toContain("export class Circle extends Figure {");
    expect(circle).toContain('const label = "Shape: circle";');
    expect(circle).toContain('its label says "Shape" on purpose');
    const shape = await readFile(path.join(root, "src/shape.ts"), "utf8");
    expect(shape).toContain('// A Shape draws its name; "Shape" in this comment');
    expect(shape).toContain("return `Shape ${this.name}`;");
    expect(await readFile(path.join(root, "src/index.ts"), "utf8")).toContain("export { Figure, describeShape }");
    // The language service sees the edit at once (the project stays warm and updates).
    const references = await call("code_navigate", { operation: "references", symbolName: "Figure", limit: 500 });
    expect(new Set((references.data.locations as Location[]).map((location) => location.path)).size).toBe(23);
  });

  it("extracts a function and a variable from a line range", async () => {
    const fn = await call("code_refactor", {
      operation: "extract_function",
      filePath: "src/report.ts",
      startLine: 7,
      endLine: 9,
      newName: "roundedArea",
    });
    expect(fn.isError, fn.text).toBe(false);
    const report = await readFile(path.join(root, "src/report.ts"), "utf8");
    expect(report).toMatch(/function roundedArea\(/);
    expect(report).not.toMatch(/newFunction/);
    const variable = await call("code_refactor", {
      operation: "extract_variable",
      filePath: "src/untidy.ts",
      startLine: 5,
      endLine: 5,
      newName: "computed",
    });
    expect(variable.isError, variable.text).toBe(false);
    const untidy = await readFile(path.join(root, "src/untidy.ts"), "utf8");
    expect(untidy).toMatch(/const computed = totalArea\(\[new Figure\("a", 1\)\]\);\nexport const area = computed;/);
  });

  it("organizes imports: the unused one goes", async () => {
    await writeFile(
      path.join(root, "src/untidy2.ts"),
      'import { Canvas } from "./canvas";\nimport { totalArea } from "./report";\n\nexport const n = totalArea([]);\n',
    );
    const answer = await call("code_refactor", { operation: "organize_imports", filePath: "src/untidy2.ts" });
    expect(answer.isError, answer.text).toBe(false);
    expect(await readFile(path.join(root, "src/untidy2.ts"), "utf8")).toBe(
      'import { totalArea } from "./report";\n\nexport const n = totalArea([]);\n',
    );
  });

  it("moves a top-level class to a new file and fixes every import", async () => {
    const answer = await call("code_refactor", {
      operation: "move_symbol_to_file",
      filePath: "src/canvas.ts",
      symbolName: "Canvas",
      targetFile: "src/ui/canvas-view.ts",
    });
    expect(answer.isError, answer.text).toBe(false);
    const moved = await readFile(path.join(root, "src/ui/canvas-view.ts"), "utf8");
    expect(moved).toMatch(/export class Canvas implements Drawable/);
    expect(moved).toMatch(/from "\.\.\/shape"/);
    expect(await readFile(path.join(root, "src/canvas.ts"), "utf8")).not.toMatch(/class Canvas/);
    expect(await readFile(path.join(root, "src/untidy.ts"), "utf8")).toMatch(
      /import \{ Canvas \} from "\.\/ui\/canvas-view";/,
    );
    for (const file of ["src/untidy.ts", "src/ui/canvas-view.ts"]) expect(await diagnosticsOf(file), file).toEqual([]);
  });

  it("refuses bad names and languages without a service, changing nothing", async () => {
    const reserved = await call("code_refactor", {
      operation: "rename",
      filePath: "src/shape.ts",
      symbolName: "describeShape",
      newName: "class",
    });
    expect(reserved.isError).toBe(true);
    expect(reserved.text).toMatch(/not a valid identifier/);
    await writeFile(path.join(root, "tool.go"), "package main\n\nfunc run() int { return 1 }\n");
    const other = await call("code_refactor", {
      operation: "rename",
      filePath: "tool.go",
      symbolName: "run",
      newName: "walk",
    });
    expect(other.isError).toBe(true);
    expect(other.text).toMatch(/code_edit or edit_file/);
    expect(await readFile(path.join(root, "tool.go"), "utf8")).toBe("package main\n\nfunc run() int { return 1 }\n");
  });
});

describe("code_generate", () => {
  it("implements an interface with members that type-check", async () => {
    await writeFile(
      path.join(root, "src/sketch.ts"),
      'import type { Drawable } from "./shape";\n\nexport class Sketch implements Drawable {}\n',
    );
    const preview = await call("code_generate", {
      operation: "implement_interface",
      filePath: "src/sketch.ts",
      symbolName: "Sketch",
      preview: true,
    });
    expect(preview.text).toContain("+  draw(): string {");
    expect(await readFile(path.join(root, "src/sketch.ts"), "utf8")).toBe(
      'import type { Drawable } from "./shape";\n\nexport class Sketch implements Drawable {}\n',
    );
    const answer = await call("code_generate", {
      operation: "implement_interface",
      filePath: "src/sketch.ts",
      symbolName: "Sketch",
    });
    expect(answer.isError, answer.text).toBe(false);
    expect(await readFile(path.join(root, "src/sketch.ts"), "utf8")).toMatch(
      /draw\(\): string \{\n\s+throw new Error\("Method not implemented\."\);\n\s+\}/,
    );
    expect(await diagnosticsOf("src/sketch.ts")).toEqual([]);
  });

  it("adds missing imports and missing members", async () => {
    await writeFile(
      path.join(root, "src/uses.ts"),
      "export const total = totalArea([]);\n\nexport class Counter {\n  bump(): number {\n    return this.count + 1;\n  }\n}\n",
    );
    expect((await diagnosticsOf("src/uses.ts")).length).toBe(2);
    expect((await call("code_generate", { operation: "add_missing_imports", filePath: "src/uses.ts" })).isError).toBe(
      false,
    );
    expect(await readFile(path.join(root, "src/uses.ts"), "utf8")).toMatch(
      /^import \{ totalArea \} from "\.\/report";/,
    );
    expect((await call("code_generate", { operation: "add_missing_members", filePath: "src/uses.ts" })).isError).toBe(
      false,
    );
    expect(await readFile(path.join(root, "src/uses.ts"), "utf8")).toMatch(/count!: number;|count: number = 0;/);
    expect(await diagnosticsOf("src/uses.ts")).toEqual([]);
    const nothing = await call("code_generate", { operation: "add_missing_imports", filePath: "src/uses.ts" });
    expect(nothing.text).toMatch(/nothing to generate/);
  });

  it("writes a test skeleton for a file's exports in the project's framework", async () => {
    const answer = await call("code_generate", { operation: "test_skeleton", filePath: "src/report.ts" });
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.data.files).toEqual([{ path: "src/report.test.ts", created: true }]);
    const skeleton = await readFile(path.join(root, "src/report.test.ts"), "utf8");
    expect(skeleton).toContain('import { describe, it } from "node:test";');
    expect(skeleton).toMatch(
      /import \{ (totalArea, report|report, totalArea|totalArea, roundedArea, report)[^}]*\} from "\.\/report";/,
    );
    expect(skeleton).toContain('describe("totalArea", () => {');
    const again = await call("code_generate", { operation: "test_skeleton", filePath: "src/report.ts" });
    expect(again.isError).toBe(true);
    expect(again.text).toMatch(/already exists/);
  });
});

/** The type errors the TypeScript compiler reports for one file of the copied project. */
async function diagnosticsOf(relative: string): Promise<string[]> {
  const ts = (await import("typescript")).default;
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  )!;
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(path.join(root, relative)))
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}
