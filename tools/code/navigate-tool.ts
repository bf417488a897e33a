import { z } from "zod";
import type { ToolRegistry } from "../registry.js";
import { textResult, ToolInputError } from "../tool-result.js";
import type { CodeContext } from "./code-context.js";
import { columnField, filePathField, lineField, symbolField, type SymbolArgs } from "./code-fields.js";
import { heuristicDefinitions } from "./heuristic.js";
import { navigateHeuristically } from "./heuristic-navigation.js";
import type { PythonLanguageServer } from "./python-language-server.js";
import { renderLocations } from "./render-locations.js";
import { navigate, type CodeLocation, type NavigateOperation } from "./ts-operations.js";

const NAVIGATE_OPERATIONS = [
  "definition",
  "references",
  "implementations",
  "callers",
  "type_definition",
  "document_symbols",
  "workspace_symbols",
] as const;

/** Registers code_navigate: the language service for TS/JS and Python, a symbol-aware search for the rest. */
export function registerNavigateTool(registry: ToolRegistry, code: CodeContext): void {
  registry.register({
    name: "code_navigate",
    description:
      "Navigate code like an IDE: definition, references, implementations, callers, type_definition, document_symbols, workspace_symbols. Identify the symbol by filePath + symbolName, filePath + line + column, or symbolName alone. TypeScript/JavaScript use the TypeScript language service; other languages fall back to a symbol-aware search and say heuristic: true.",
    inputSchema: {
      operation: z.enum(NAVIGATE_OPERATIONS).describe("What to find"),
      symbolName: symbolField.optional(),
      filePath: filePathField.optional(),
      line: lineField.optional(),
      column: columnField.optional(),
      limit: z.number().int().min(1).max(500).optional().describe("At most this many locations (default 20)"),
    },
    annotations: { readOnlyHint: true },
    handler: async (args) => {
      const limit = args.limit ?? 20;
      const project = code.tsFor(args.filePath);
      const python = code.pythonFor(args.filePath);
      let locations: CodeLocation[];
      let heuristic = false;
      const fromPython = python === null ? null : await navigatePython(code, python, args.operation, args);
      if (fromPython !== null) {
        locations = fromPython.locations.slice(0, limit);
        heuristic = fromPython.heuristic;
      } else if (project !== null) {
        const at = args.operation === "workspace_symbols" ? undefined : await code.positionIn(project, args);
        locations = navigate(project, args.operation as NavigateOperation, at, args.symbolName, limit);
      } else {
        heuristic = true;
        locations = (await navigateHeuristically(code.access, args)).slice(0, limit);
      }
      const header = `${args.operation}: ${locations.length} location${locations.length === 1 ? "" : "s"}${heuristic ? " (heuristic: patterns and word search, no language service)" : ""}`;
      return textResult(locations.length === 0 ? `${header}.` : `${header}\n${renderLocations(locations)}`, {
        operation: args.operation,
        heuristic,
        locations,
      });
    },
  });
}

/** What pyright answers for `operation`, or null when it has no answer for it (the caller falls back). */
async function navigatePython(
  code: CodeContext,
  server: PythonLanguageServer,
  operation: string,
  args: SymbolArgs,
): Promise<{ locations: CodeLocation[]; heuristic: boolean } | null> {
  if (operation === "workspace_symbols") {
    if (args.symbolName === undefined) return null;
    // pyright answers from what it has analysed so far, which may be nothing yet: then the declarations themselves.
    const symbols = await server.workspaceSymbols(args.symbolName);
    return symbols.length > 0
      ? { locations: symbols, heuristic: false }
      : { locations: await heuristicDefinitions(code.root, args.symbolName, "python"), heuristic: true };
  }
  const locations = await navigatePythonAt(code, server, operation, args);
  return locations === null ? null : { locations, heuristic: false };
}

async function navigatePythonAt(
  code: CodeContext,
  server: PythonLanguageServer,
  operation: string,
  args: SymbolArgs,
): Promise<CodeLocation[] | null> {
  if (args.filePath === undefined) {
    if (args.symbolName === undefined) throw new ToolInputError("Give symbolName, or filePath with line and column.");
    args = { ...args, filePath: await code.pythonDeclaration(args.symbolName) };
  }
  if (operation === "document_symbols")
    return server.documentSymbols((await code.access.resolve(args.filePath!, "read")).absolute);
  const at = await code.pythonPosition(args);
  if (operation === "definition") return server.definition(at.file, at.line, at.column);
  if (operation === "references") return server.references(at.file, at.line, at.column);
  if (operation === "callers") return server.callers(at.file, at.line, at.column);
  return null;
}
