import { describe, expect, it } from "vitest";
import { capFileList, renderRipgrepJson } from "../../../../tools/search/ripgrep-output.js";

const event = (type: string, file: string, line: number, text: string) =>
  JSON.stringify({ type, data: { path: { text: file }, line_number: line, lines: { text: `${text}\n` } } });

describe("renderRipgrepJson", () => {
  it("renders matches as file:line:content and strips a leading ./", () => {
    const output = [
      JSON.stringify({ type: "begin" }),
      event("match", "./src/a.ts", 3, "const a = 1;"),
      event("match", "b.ts", 9, "x"),
    ].join("\n");
    expect(renderRipgrepJson(output, 100)).toEqual({
      text: "src/a.ts:3:const a = 1;\nb.ts:9:x",
      matches: 2,
      capped: false,
    });
  });

  it("renders context lines with dashes and separates groups with --", () => {
    const output = [
      event("context", "a.ts", 1, "before"),
      event("match", "a.ts", 2, "hit"),
      event("context", "a.ts", 3, "after"),
      event("match", "a.ts", 10, "again"),
    ].join("\n");
    expect(renderRipgrepJson(output, 100, true).text).toBe(
      "a.ts-1-before\na.ts:2:hit\na.ts-3-after\n--\na.ts:10:again",
    );
  });

  it("stops at the match cap and says it was capped", () => {
    const output = Array.from({ length: 150 }, (_, i) => event("match", "f.txt", i + 1, "m")).join("\n");
    const rendered = renderRipgrepJson(output, 100);
    expect(rendered.matches).toBe(100);
    expect(rendered.capped).toBe(true);
    expect(rendered.text.split("\n")).toHaveLength(100);
  });

  it("skips lines that are not JSON (a cut-off tail)", () => {
    expect(renderRipgrepJson(`${event("match", "a", 1, "x")}\n{"type":"mat`, 5).matches).toBe(1);
  });
});

describe("capFileList", () => {
  it("sorts, drops empty lines and caps with the total", () => {
    expect(capFileList(["b", "", "a", "c"], 2)).toEqual({ files: ["a", "b"], capped: true, total: 3 });
  });
});
