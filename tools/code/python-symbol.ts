import { ToolInputError } from "../tool-result.js";

/** The 1-based line and column of `name` in a Python file: its def/class there, else its first use outside strings and comments. */
export function findPythonSymbol(text: string, name: string, relative: string): { line: number; column: number } {
  const lines = text.split("\n");
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const declaration = new RegExp(`^(\\s*(?:async\\s+)?(?:def|class)\\s+)${escaped}\\b`);
  for (let i = 0; i < lines.length; i += 1) {
    const match = declaration.exec(lines[i]!);
    if (match) return { line: i + 1, column: match[1]!.length + 1 };
  }
  const word = new RegExp(`\\b${escaped}\\b`);
  for (let i = 0; i < lines.length; i += 1) {
    const code = lines[i]!.replace(/#.*$/, "").replace(/(["'])(?:\\.|(?!\1).)*\1/g, (literal) =>
      " ".repeat(literal.length),
    );
    const match = word.exec(code);
    if (match) return { line: i + 1, column: match.index + 1 };
  }
  throw new ToolInputError(`No symbol named "${name}" in ${relative}. Check the spelling, or give line and column.`);
}
