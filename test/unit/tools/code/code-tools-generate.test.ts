import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useFixtureProject } from "./code-tools-harness.js";

const project = useFixtureProject();
const { call, diagnosticsOf } = project;

describe("code_generate", () => {
  it("implements an interface with members that type-check", async () => {
    await writeFile(
      path.join(project.root, "src/sketch.ts"),
      'import type { Drawable } from "./shape";\n\nexport class Sketch implements Drawable {}\n',
    );
    const preview = await call("code_generate", {
      operation: "implement_interface",
      filePath: "src/sketch.ts",
      symbolName: "Sketch",
      preview: true,
    });
    expect(preview.text).toContain("+  draw(): string {");
    expect(await readFile(path.join(project.root, "src/sketch.ts"), "utf8")).toBe(
      'import type { Drawable } from "./shape";\n\nexport class Sketch implements Drawable {}\n',
    );
    const answer = await call("code_generate", {
      operation: "implement_interface",
      filePath: "src/sketch.ts",
      symbolName: "Sketch",
    });
    expect(answer.isError, answer.text).toBe(false);
    expect(await readFile(path.join(project.root, "src/sketch.ts"), "utf8")).toMatch(
      /draw\(\): string \{\n\s+throw new Error\("Method not implemented\."\);\n\s+\}/,
    );
    expect(await diagnosticsOf("src/sketch.ts")).toEqual([]);
  });

  it("adds missing imports and missing members", async () => {
    await writeFile(
      path.join(project.root, "src/uses.ts"),
      "export const total = totalArea([]);\n\nexport class Counter {\n  bump(): number {\n    return this.count + 1;\n  }\n}\n",
    );
    expect((await diagnosticsOf("src/uses.ts")).length).toBe(2);
    expect((await call("code_generate", { operation: "add_missing_imports", filePath: "src/uses.ts" })).isError).toBe(
      false,
    );
    expect(await readFile(path.join(project.root, "src/uses.ts"), "utf8")).toMatch(
      /^import \{ totalArea \} from "\.\/report";/,
    );
    expect((await call("code_generate", { operation: "add_missing_members", filePath: "src/uses.ts" })).isError).toBe(
      false,
    );
    expect(await readFile(path.join(project.root, "src/uses.ts"), "utf8")).toMatch(
      /count!: number;|count: number = 0;/,
    );
    expect(await diagnosticsOf("src/uses.ts")).toEqual([]);
    const nothing = await call("code_generate", { operation: "add_missing_imports", filePath: "src/uses.ts" });
    expect(nothing.text).toMatch(/nothing to generate/);
  });

  it("writes a test skeleton for a file's exports in the project's framework", async () => {
    const answer = await call("code_generate", { operation: "test_skeleton", filePath: "src/report.ts" });
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.data.files).toEqual([{ path: "src/report.test.ts", created: true }]);
    const skeleton = await readFile(path.join(project.root, "src/report.test.ts"), "utf8");
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
