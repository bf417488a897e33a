import { describe, expect, it } from "vitest";
import { type Location, useFixtureProject } from "./code-tools-harness.js";

const project = useFixtureProject();
const { call } = project;

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
