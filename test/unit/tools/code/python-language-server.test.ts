import { describe, expect, it } from "vitest";
import { applyTextEdits, findPythonSymbol } from "../../../../tools/code/python-language-server.js";

const range = (line: number, start: number, end: number) => ({
  start: { line, character: start },
  end: { line, character: end },
});

describe("applyTextEdits", () => {
  it("applies edits from the end so earlier offsets stay valid, across lines", () => {
    const text = "def f():\n    return f()\n";
    expect(
      applyTextEdits(text, [
        { range: range(0, 4, 5), newText: "g" },
        { range: range(1, 11, 12), newText: "g" },
      ]),
    ).toBe("def g():\n    return g()\n");
  });

  it("counts columns in UTF-16 units, as LSP does", () => {
    expect(applyTextEdits("s = '😀'; x = 1\n", [{ range: range(0, 10, 11), newText: "y" }])).toBe("s = '😀'; y = 1\n");
  });
});

describe("findPythonSymbol", () => {
  const source =
    '# total mentioned in a comment\nlabel = "total"\n\nclass Cart:\n    def total(self):\n        return 1\n';

  it("prefers the def or class, pointing at the name", () => {
    expect(findPythonSymbol(source, "total", "cart.py")).toEqual({ line: 5, column: 9 });
    expect(findPythonSymbol(source, "Cart", "cart.py")).toEqual({ line: 4, column: 7 });
  });

  it("otherwise finds the first use outside comments and strings, and names the file when absent", () => {
    expect(findPythonSymbol('x = "label"\nprint(label)\nlabel = 2\n', "label", "a.py")).toEqual({ line: 2, column: 7 });
    expect(() => findPythonSymbol(source, "missing", "cart.py")).toThrow(/No symbol named "missing" in cart\.py/);
  });
});
