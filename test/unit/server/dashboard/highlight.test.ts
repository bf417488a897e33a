import { describe, expect, it } from "vitest";
// @ts-expect-error: the dashboard's browser modules are plain JavaScript without declarations.
import { LANGUAGE } from "../../../../server/dashboard/highlight.js";

describe("the dashboard's language of a file extension", () => {
  it("names the languages it highlights", () => {
    expect([LANGUAGE.ts, LANGUAGE.py, LANGUAGE.bash]).toEqual(["js", "py", "sh"]);
  });

  it("names none for an extension that is a property of every object, so a file 'x.toString' in a diff is shown plain", () => {
    for (const extension of ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"]) {
      expect(LANGUAGE[extension], extension).toBeUndefined();
    }
  });
});
