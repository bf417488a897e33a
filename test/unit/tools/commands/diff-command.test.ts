import { describe, expect, it } from "vitest";
import { parseNameStatus, parseNumstat } from "../../../../tools/commands/diff-command.js";

describe("diff parsing", () => {
  it("parses name-status with renames and odd file names", () => {
    const output = [
      "M",
      "src/a.ts",
      "A",
      "new file.txt",
      "R087",
      "old.ts",
      "renamed.ts",
      "D",
      "gone:colon.md",
      "",
    ].join("\0");
    expect(parseNameStatus(output)).toEqual([
      { path: "src/a.ts", status: "modified" },
      { path: "new file.txt", status: "added" },
      { path: "renamed.ts", status: "renamed", oldPath: "old.ts" },
      { path: "gone:colon.md", status: "deleted" },
    ]);
  });

  it("parses numstat, counting binary files as zero and keying renames by the new path", () => {
    const output = ["3\t1\tsrc/a.ts", "-\t-\timage.png", "2\t2\t", "old.ts", "renamed.ts", ""].join("\0");
    const counts = parseNumstat(output);
    expect(counts.get("src/a.ts")).toEqual({ additions: 3, deletions: 1 });
    expect(counts.get("image.png")).toEqual({ additions: 0, deletions: 0 });
    expect(counts.get("renamed.ts")).toEqual({ additions: 2, deletions: 2 });
    expect(counts.size).toBe(3);
  });
});
