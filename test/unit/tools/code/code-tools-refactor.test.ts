import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type Location, useFixtureProject } from "./code-tools-harness.js";

const project = useFixtureProject();
const { call, diagnosticsOf } = project;

describe("code_refactor", () => {
  it("previews a rename as a diff without touching a file", async () => {
    const before = await readFile(path.join(project.root, "src/shapes/circle.ts"), "utf8");
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
    expect(await readFile(path.join(project.root, "src/shapes/circle.ts"), "utf8")).toBe(before);
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
    const circle = await readFile(path.join(project.root, "src/shapes/circle.ts"), "utf8");
    expect(circle).toContain('import { Figure, describeShape } from "../shape";');
    expect(circle).toContain("export class Circle extends Figure {");
    expect(circle).toContain('const label = "Shape: circle";');
    expect(circle).toContain('its label says "Shape" on purpose');
    const shape = await readFile(path.join(project.root, "src/shape.ts"), "utf8");
    expect(shape).toContain('// A Shape draws its name; "Shape" in this comment');
    expect(shape).toContain("return `Shape ${this.name}`;");
    expect(await readFile(path.join(project.root, "src/index.ts"), "utf8")).toContain(
      "export { Figure, describeShape }",
    );
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
    const report = await readFile(path.join(project.root, "src/report.ts"), "utf8");
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
    const untidy = await readFile(path.join(project.root, "src/untidy.ts"), "utf8");
    expect(untidy).toMatch(/const computed = totalArea\(\[new Figure\("a", 1\)\]\);\nexport const area = computed;/);
  });

  it("organizes imports: the unused one goes", async () => {
    await writeFile(
      path.join(project.root, "src/untidy2.ts"),
      'import { Canvas } from "./canvas";\nimport { totalArea } from "./report";\n\nexport const n = totalArea([]);\n',
    );
    const answer = await call("code_refactor", { operation: "organize_imports", filePath: "src/untidy2.ts" });
    expect(answer.isError, answer.text).toBe(false);
    expect(await readFile(path.join(project.root, "src/untidy2.ts"), "utf8")).toBe(
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
    const moved = await readFile(path.join(project.root, "src/ui/canvas-view.ts"), "utf8");
    expect(moved).toMatch(/export class Canvas implements Drawable/);
    expect(moved).toMatch(/from "\.\.\/shape"/);
    expect(await readFile(path.join(project.root, "src/canvas.ts"), "utf8")).not.toMatch(/class Canvas/);
    expect(await readFile(path.join(project.root, "src/untidy.ts"), "utf8")).toMatch(
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
    await writeFile(path.join(project.root, "tool.go"), "package main\n\nfunc run() int { return 1 }\n");
    const other = await call("code_refactor", {
      operation: "rename",
      filePath: "tool.go",
      symbolName: "run",
      newName: "walk",
    });
    expect(other.isError).toBe(true);
    expect(other.text).toMatch(/code_edit or edit_file/);
    expect(await readFile(path.join(project.root, "tool.go"), "utf8")).toBe(
      "package main\n\nfunc run() int { return 1 }\n",
    );
  });
});
