import { lineStarts } from "./ts-project.js";

/** A 0-based line and UTF-16 character, as LSP counts them. */
export interface LspPosition {
  line: number;
  character: number;
}

/** A span between two LSP positions. */
export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

/** A span in a file named by its URI. */
export interface LspLocation {
  uri: string;
  range: LspRange;
}

/** One replacement of a span's text. */
export interface TextEdit {
  range: LspRange;
  newText: string;
}

/** Names of the LSP symbol kinds the code tools report. */
export const LSP_SYMBOL_KINDS: Record<number, string> = {
  2: "module",
  5: "class",
  6: "method",
  7: "property",
  8: "field",
  9: "constructor",
  12: "function",
  13: "variable",
  14: "constant",
};

/** A definition answer (nothing, one location, locations or location links) as a list of locations. */
export function asLocations(result: unknown): LspLocation[] {
  const list = result === null || result === undefined ? [] : Array.isArray(result) ? result : [result];
  return list.map((item: LspLocation | { targetUri: string; targetSelectionRange: LspRange }) =>
    "targetUri" in item ? { uri: item.targetUri, range: item.targetSelectionRange } : item,
  );
}

/** Applies LSP text edits (UTF-16 positions, as JavaScript strings count) to a text. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = lineStarts(text);
  const offset = (position: LspPosition) =>
    Math.min((starts[position.line] ?? text.length) + position.character, text.length);
  const ordered = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  let out = text;
  for (const edit of ordered)
    out = out.slice(0, offset(edit.range.start)) + edit.newText + out.slice(offset(edit.range.end));
  return out;
}
