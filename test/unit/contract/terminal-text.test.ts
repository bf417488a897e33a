import { describe, expect, it } from "vitest";
import { escapeControls, stringifyForTerminal } from "../../../contract/terminal-text.js";

describe("escapeControls", () => {
  it("shows escape sequences, carriage returns, bells and backspaces as visible text and keeps newlines and tabs", () => {
    const hostile = "+ok\u001b]0;pwned\u0007\u001b[2J\u001b[31mred\r\bhidden\tcol\nnext";
    const shown = escapeControls(hostile);
    expect(shown).toBe("+ok\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred\\r\\x08hidden\tcol\nnext");
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it("escapes DEL, 8-bit C1 controls such as CSI, and bidirectional overrides", () => {
    expect(escapeControls("a\u007fb\u009b31mc\u202ed\u2066e")).toBe("a\\x7fb\\x9b31mc\\u202ed\\u2066e");
  });

  it("leaves ordinary text, including non-ASCII letters and emoji, unchanged", () => {
    expect(escapeControls("héllo wörld ✓ 🙂 日本")).toBe("héllo wörld ✓ 🙂 日本");
  });
});

describe("stringifyForTerminal", () => {
  it("is valid JSON that round-trips and carries no raw control characters", () => {
    const value = { patch: "\u001b[2J\u009b\u202e\n" };
    const text = stringifyForTerminal(value);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
  });
});
