import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AccessControl } from "../permissions/access-control.js";
import { ToolInputError } from "../tool-result.js";
import type { SymbolArgs } from "./code-fields.js";
import { heuristicDefinitions, heuristicReferences, heuristicSymbols, languageOf, wordAt } from "./heuristic.js";
import type { CodeLocation } from "./ts-operations.js";

/**
 * A navigation `operation` without a language service: declaration patterns for the
 * definition-like operations, word search for the rest, the file's declarations for
 * document_symbols. The symbol is symbolName, or the word at line and column.
 */
export async function navigateHeuristically(
  access: AccessControl,
  args: SymbolArgs & { operation: string },
): Promise<CodeLocation[]> {
  const root = access.workspace;
  const language = args.filePath === undefined ? undefined : languageOf(args.filePath);
  const relative = args.filePath === undefined ? undefined : (await access.resolve(args.filePath, "read")).relative;
  if (args.operation === "document_symbols") {
    if (relative === undefined) throw new ToolInputError("document_symbols needs filePath.");
    return heuristicSymbols(root, relative, language);
  }
  let name = args.symbolName;
  if (name === undefined && relative !== undefined && args.line !== undefined && args.column !== undefined) {
    const text = (await readFile(path.join(root, relative), "utf8")).split("\n")[args.line - 1] ?? "";
    name = wordAt(text, args.column);
  }
  if (name === undefined)
    throw new ToolInputError(`${args.operation} needs symbolName (or filePath with line and column on the symbol).`);
  switch (args.operation) {
    case "definition":
    case "type_definition":
    case "implementations":
    case "workspace_symbols":
      return heuristicDefinitions(root, name, language);
    default:
      return heuristicReferences(root, name, language);
  }
}
