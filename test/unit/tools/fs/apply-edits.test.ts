import { describe, expect, it } from "vitest";
import { applyEdits } from "../../../../tools/fs/write-tools.js";

describe("applyEdits", () => {
  it("applies edits in order, each to the result of the previous one", () => {
    expect(
      applyEdits("a b c", [
        { oldText: "a", newText: "x" },
        { oldText: "x b", newText: "y" },
      ]),
    ).toBe("y c");
  });

  it("refuses an oldText that is missing, telling the agent to re-read", () => {
    expect(() => applyEdits("abc", [{ oldText: "zzz", newText: "" }])).toThrow(/Edit 1: oldText was not found/);
  });

  it("refuses an oldText that matches more than once", () => {
    expect(() => applyEdits("ab ab", [{ oldText: "ab", newText: "x" }])).toThrow(/matches more than once/);
  });

  it("is all-or-nothing: a failing later edit leaves the input unchanged", () => {
    const input = "one two";
    expect(() =>
      applyEdits(input, [
        { oldText: "one", newText: "1" },
        { oldText: "three", newText: "3" },
      ]),
    ).toThrow(/Edit 2/);
    expect(input).toBe("one two");
  });
});
