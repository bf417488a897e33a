import { describe, expect, it } from "vitest";
import { applyCodeEdit, renderRegion } from "../../../../tools/edit/code-edit.js";

const source = "line 1\nline 2\nline 3\nline 4\n";

describe("applyCodeEdit", () => {
  it("replaces an inclusive 1-based line range", () => {
    const outcome = applyCodeEdit(source, {
      command: "replace_lines",
      startLine: 2,
      endLine: 3,
      content: "two\nthree\nthree and a half",
    });
    expect(outcome.text).toBe("line 1\ntwo\nthree\nthree and a half\nline 4\n");
    expect([outcome.firstLine, outcome.lastLine]).toEqual([2, 4]);
  });

  it("inserts before a line when endLine is startLine - 1, and deletes with empty content", () => {
    expect(
      applyCodeEdit(source, { command: "replace_lines", startLine: 2, endLine: 1, content: "inserted" }).text,
    ).toBe("line 1\ninserted\nline 2\nline 3\nline 4\n");
    expect(applyCodeEdit(source, { command: "replace_lines", startLine: 2, endLine: 3, content: "" }).text).toBe(
      "line 1\nline 4\n",
    );
  });

  it("refuses line ranges outside the file", () => {
    expect(() => applyCodeEdit(source, { command: "replace_lines", startLine: 4, endLine: 9, content: "x" })).toThrow(
      /outside the file, which has 4 lines/,
    );
  });

  it("finds and replaces a literal once, reporting the line", () => {
    const outcome = applyCodeEdit(source, { command: "find_replace", find: "line 3", content: "LINE THREE" });
    expect(outcome.text).toBe("line 1\nline 2\nLINE THREE\nline 4\n");
    expect(outcome.firstLine).toBe(3);
  });

  it("refuses an ambiguous literal unless all is set", () => {
    expect(() => applyCodeEdit(source, { command: "find_replace", find: "line", content: "x" })).toThrow(
      /matches more than once/,
    );
    const outcome = applyCodeEdit(source, { command: "find_replace", find: "line", content: "row", all: true });
    expect(outcome.text).toBe("row 1\nrow 2\nrow 3\nrow 4\n");
    expect(outcome.replacements).toBe(4);
  });

  it("supports regular expressions with capture groups", () => {
    const outcome = applyCodeEdit(source, {
      command: "find_replace",
      find: "line (\\d)",
      content: "L$1",
      regex: true,
      all: true,
    });
    expect(outcome.text).toBe("L1\nL2\nL3\nL4\n");
    expect(() => applyCodeEdit(source, { command: "find_replace", find: "(", content: "", regex: true })).toThrow(
      /Invalid regular expression/,
    );
  });

  it("says when the text is not found", () => {
    expect(() => applyCodeEdit(source, { command: "find_replace", find: "nope", content: "" })).toThrow(
      /was not found/,
    );
  });

  it("writes a whole file", () => {
    expect(applyCodeEdit(source, { command: "write", content: "new\n" }).text).toBe("new\n");
  });
});

describe("renderRegion", () => {
  it("numbers lines and marks the edited ones with context around them", () => {
    const text = Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join("\n");
    expect(renderRegion(text, 5, 5, 2)).toBe("3  l3\n4  l4\n5> l5\n6  l6\n7  l7");
    expect(renderRegion(text, 9, 9, 1).split("\n")[0]).toBe(" 8  l8");
  });
});
