import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { beneathRoot, writeFileBeneath } from "../fs/beneath.js";
import { unifiedDiff } from "../fs/write-tools.js";
import type { AccessControl } from "../permissions/access-control.js";
import type { ToolRegistry } from "../registry.js";
import { textResult, ToolInputError } from "../tool-result.js";
import {
  codeFixEdits,
  pythonTestSkeleton,
  testFramework,
  testPathFor,
  tsTestSkeleton,
  type FixOperation,
} from "./generate.js";
import { heuristicDefinitions, heuristicReferences, heuristicSymbols, languageOf, wordAt } from "./heuristic.js";
import {
  extractEdits,
  inspect,
  moveEdits,
  navigate,
  organizeImportsEdits,
  renameEdits,
  type CodeLocation,
  type FileEdits,
  type NavigateOperation,
} from "./ts-operations.js";
import { findPythonSymbol, pythonServerFor, type PythonLanguageServer } from "./python-language-server.js";
import { isTsLike, projectFor, type Position, type TsProject } from "./ts-project.js";
import { inspectProject } from "../project/project-tool.js";

const NAVIGATE_OPERATIONS = [
  "definition",
  "references",
  "implementations",
  "callers",
  "type_definition",
  "document_symbols",
  "workspace_symbols",
] as const;
const REFACTOR_OPERATIONS = [
  "rename",
  "extract_function",
  "extract_variable",
  "organize_imports",
  "move_symbol_to_file",
] as const;
const MAX_PREVIEW_CHARS = 60_000;

const filePathField = z.string().min(1).describe("File relative to /workspace");
const symbolField = z
  .string()
  .min(1)
  .max(200)
  .describe("The symbol's name (its declaration in filePath is used, else its first use there)");
const lineField = z.number().int().min(1).describe("1-based line of the symbol (with column, instead of symbolName)");
const columnField = z.number().int().min(1).describe("1-based column of the symbol");

function render(locations: readonly CodeLocation[]): string {
  return locations
    .map(
      (location) =>
        `${location.path}:${location.line}:${location.column}${location.kind ? ` [${location.kind}${location.name ? ` ${location.name}` : ""}]` : location.isDefinition ? " [definition]" : ""}  ${location.text}`,
    )
    .join("\n");
}

/** Registers code_navigate, code_inspect, code_refactor and code_generate. */
export function registerCodeTools(registry: ToolRegistry, access: AccessControl): void {
  const root = access.workspace;
  /** How edits name files when no TypeScript project is involved. */
  const workspacePaths = { relative: (file: string) => path.relative(root, file) };

  /** The TypeScript project when `file` (or, with no file, the workspace) is TS/JS and TypeScript is available. */
  const tsFor = (file: string | undefined): TsProject | null =>
    file === undefined || isTsLike(file) ? projectFor(root) : null;

  /** The Python language server when `file` is Python (or, with no file, the workspace is a Python project) and pyright is available. */
  const pythonFor = (file: string | undefined): PythonLanguageServer | null => {
    if (file !== undefined) return languageOf(file) === "python" ? pythonServerFor(root) : null;
    return inspectProject(root).language === "python" ? pythonServerFor(root) : null;
  };

  /** Where `name` is declared in a Python workspace: in the sources before the tests. */
  async function pythonDeclaration(name: string): Promise<string> {
    const found = await heuristicDefinitions(root, name, "python");
    const isTest = (file: string) => /(^|\/)(tests?|testing)\/|(^|\/)test_[^/]*\.py$|_test\.py$/.test(file);
    const chosen = [...found].sort((a, b) => Number(isTest(a.path)) - Number(isTest(b.path)))[0];
    if (chosen === undefined)
      throw new ToolInputError(
        `No Python declaration (def, class or assignment) named "${name}" in the workspace. Give filePath (and line/column) to look at a use instead.`,
      );
    return chosen.path;
  }

  async function pythonPosition(args: {
    filePath?: string | undefined;
    symbolName?: string | undefined;
    line?: number | undefined;
    column?: number | undefined;
  }): Promise<{ file: string; line: number; column: number }> {
    const resolved = await access.resolve(args.filePath!, "read");
    if (args.line !== undefined && args.column !== undefined)
      return { file: resolved.absolute, line: args.line, column: args.column };
    if (args.symbolName === undefined) throw new ToolInputError("Give symbolName, or line and column.");
    return {
      file: resolved.absolute,
      ...findPythonSymbol(await readFile(resolved.absolute, "utf8"), args.symbolName, resolved.relative),
    };
  }

  async function navigatePython(
    server: PythonLanguageServer,
    operation: string,
    args: {
      filePath?: string | undefined;
      symbolName?: string | undefined;
      line?: number | undefined;
      column?: number | undefined;
    },
  ): Promise<{ locations: CodeLocation[]; heuristic: boolean } | null> {
    if (operation === "workspace_symbols") {
      if (args.symbolName === undefined) return null;
      // pyright answers from what it has analysed so far, which may be nothing yet: then the declarations themselves.
      const symbols = await server.workspaceSymbols(args.symbolName);
      return symbols.length > 0
        ? { locations: symbols, heuristic: false }
        : { locations: await heuristicDefinitions(root, args.symbolName, "python"), heuristic: true };
    }
    const locations = await navigatePythonAt(server, operation, args);
    return locations === null ? null : { locations, heuristic: false };
  }

  async function navigatePythonAt(
    server: PythonLanguageServer,
    operation: string,
    args: {
      filePath?: string | undefined;
      symbolName?: string | undefined;
      line?: number | undefined;
      column?: number | undefined;
    },
  ): Promise<CodeLocation[] | null> {
    if (args.filePath === undefined) {
      if (args.symbolName === undefined) throw new ToolInputError("Give symbolName, or filePath with line and column.");
      args = { ...args, filePath: await pythonDeclaration(args.symbolName) };
    }
    if (operation === "document_symbols")
      return server.documentSymbols((await access.resolve(args.filePath!, "read")).absolute);
    const at = await pythonPosition(args);
    if (operation === "definition") return server.definition(at.file, at.line, at.column);
    if (operation === "references") return server.references(at.file, at.line, at.column);
    if (operation === "callers") return server.callers(at.file, at.line, at.column);
    return null;
  }

  async function positionIn(
    project: TsProject,
    args: {
      filePath?: string | undefined;
      symbolName?: string | undefined;
      line?: number | undefined;
      column?: number | undefined;
    },
  ): Promise<Position | undefined> {
    if (args.filePath === undefined)
      return args.symbolName === undefined ? undefined : project.findInProject(args.symbolName);
    const resolved = await access.resolve(args.filePath, "read");
    if (args.line !== undefined && args.column !== undefined)
      return project.at(resolved.absolute, args.line, args.column);
    if (args.symbolName !== undefined) return project.find(resolved.absolute, args.symbolName);
    if (args.line !== undefined || args.column !== undefined)
      throw new ToolInputError("Give both line and column, or symbolName.");
    return project.position(resolved.absolute, 0);
  }

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
      const project = tsFor(args.filePath);
      const python = pythonFor(args.filePath);
      let locations: CodeLocation[];
      let heuristic = false;
      const fromPython = python === null ? null : await navigatePython(python, args.operation, args);
      if (fromPython !== null) {
        locations = fromPython.locations.slice(0, limit);
        heuristic = fromPython.heuristic;
      } else if (project !== null) {
        const at = args.operation === "workspace_symbols" ? undefined : await positionIn(project, args);
        locations = navigate(project, args.operation as NavigateOperation, at, args.symbolName, limit);
      } else {
        heuristic = true;
        locations = (await navigateHeuristically(access, args)).slice(0, limit);
      }
      const header = `${args.operation}: ${locations.length} location${locations.length === 1 ? "" : "s"}${heuristic ? " (heuristic: patterns and word search, no language service)" : ""}`;
      return textResult(locations.length === 0 ? `${header}.` : `${header}\n${render(locations)}`, {
        operation: args.operation,
        heuristic,
        locations,
      });
    },
  });

  registry.register({
    name: "code_inspect",
    description:
      "Describe a symbol: kind, signature or type, members (for classes, interfaces, enums), doc comment and where it is declared. Identify it by symbolName or line + column in filePath.",
    inputSchema: {
      filePath: filePathField,
      symbolName: symbolField.optional(),
      line: lineField.optional(),
      column: columnField.optional(),
    },
    annotations: { readOnlyHint: true },
    handler: async (args) => {
      if (args.symbolName === undefined && (args.line === undefined || args.column === undefined))
        throw new ToolInputError("code_inspect needs symbolName, or line and column.");
      const python = pythonFor(args.filePath);
      if (python !== null) {
        const at = await pythonPosition(args);
        const [hover, declaredAt] = await Promise.all([
          python.hover(at.file, at.line, at.column),
          python.definition(at.file, at.line, at.column),
        ]);
        if (hover === "") throw new ToolInputError(`There is no symbol at ${args.filePath}:${at.line}:${at.column}.`);
        const [signature = "", ...rest] = hover.replace(/^```python\n?|\n?```$/gm, "").split(/\n-{3,}\n|\n\n/);
        const kind =
          /^\((\w+)\)/.exec(signature)?.[1] ??
          (/^class\b/.test(signature) ? "class" : /^def\b/.test(signature) ? "function" : "symbol");
        const inspection = {
          heuristic: false,
          name: args.symbolName ?? "",
          kind,
          signature: signature.trim(),
          documentation: rest.join("\n\n").trim(),
          declaredAt,
        };
        return textResult(
          [
            `${kind}: ${inspection.signature}`,
            inspection.documentation ? `\n${inspection.documentation}` : "",
            declaredAt.length > 0 ? `\ndeclared at:\n${render(declaredAt)}` : "",
          ].join(""),
          inspection,
        );
      }
      const project = tsFor(args.filePath);
      if (project === null) {
        const found = await navigateHeuristically(access, { ...args, operation: "definition" });
        const name = args.symbolName ?? found[0]?.name ?? "";
        return textResult(
          found.length === 0
            ? `No declaration of "${name}" found (heuristic search).`
            : `Declarations of ${name} (heuristic: patterns, no language service):\n${render(found)}`,
          { heuristic: true, name, declaredAt: found },
        );
      }
      const at = await positionIn(project, args);
      const inspection = inspect(project, at!);
      const lines = [
        `${inspection.kind}${inspection.modifiers ? ` (${inspection.modifiers})` : ""}: ${inspection.signature}`,
      ];
      if (inspection.documentation) lines.push("", inspection.documentation);
      for (const tag of inspection.tags) lines.push(`@${tag.name} ${tag.text}`);
      if (inspection.members.length > 0)
        lines.push("", "members:", ...inspection.members.map((member) => `  ${member.name}: ${member.type}`));
      if (inspection.declaredAt.length > 0) lines.push("", "declared at:", render(inspection.declaredAt));
      return textResult(lines.join("\n"), { heuristic: false, ...inspection });
    },
  });

  registry.register({
    name: "code_refactor",
    description:
      "Refactor with a language service across all files: rename (every reference and import; strings and comments untouched; TypeScript, JavaScript, Python), extract_function / extract_variable (lines startLine..endLine), organize_imports, move_symbol_to_file (a top-level declaration to targetFile, imports fixed). With preview: true, answers the unified diff and changes nothing. Other languages: use code_edit or edit_file.",
    inputSchema: {
      operation: z.enum(REFACTOR_OPERATIONS).describe("The refactoring"),
      filePath: filePathField,
      symbolName: symbolField.optional(),
      line: lineField.optional(),
      column: columnField.optional(),
      newName: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe("rename: the new name; extract_*: the name of the new function or variable"),
      startLine: z.number().int().min(1).optional().describe("extract_*: first line of the code to extract"),
      endLine: z.number().int().min(1).optional().describe("extract_*: last line of the code to extract"),
      targetFile: z.string().min(1).optional().describe("move_symbol_to_file: the destination file"),
      preview: z.boolean().optional().describe("Return the diff without writing anything (default false)"),
    },
    annotations: { destructiveHint: true },
    handler: async (args) => {
      const resolved = await access.resolve(args.filePath, "write");
      const python = pythonFor(resolved.absolute);
      if (python !== null && args.operation === "rename") {
        if (args.newName === undefined) throw new ToolInputError("rename needs newName.");
        if (!/^[A-Za-z_]\w*$/.test(args.newName))
          throw new ToolInputError(`"${args.newName}" is not a valid Python identifier.`);
        const at = await pythonPosition(args);
        return applyEdits(
          access,
          workspacePaths,
          await python.rename(at.file, at.line, at.column, args.newName),
          args.preview === true,
          "rename",
        );
      }
      const project = tsFor(resolved.absolute);
      if (project === null) {
        throw new ToolInputError(
          `code_refactor ${args.operation} needs a TypeScript or JavaScript file${python !== null ? " (Python supports rename)" : ""}; ${args.filePath} has no language service for it here. Make the change with code_edit or edit_file (find the places with code_navigate).`,
        );
      }
      let edits: FileEdits;
      switch (args.operation) {
        case "rename": {
          if (args.newName === undefined) throw new ToolInputError("rename needs newName.");
          const at = await positionIn(project, args);
          edits = renameEdits(project, at!, args.newName);
          break;
        }
        case "extract_function":
        case "extract_variable":
          if (args.startLine === undefined || args.endLine === undefined)
            throw new ToolInputError(`${args.operation} needs startLine and endLine.`);
          if (args.endLine < args.startLine)
            throw new ToolInputError(`endLine (${args.endLine}) is before startLine (${args.startLine}).`);
          edits = extractEdits(
            project,
            resolved.absolute,
            args.operation === "extract_function" ? "function" : "constant",
            args.startLine,
            args.endLine,
            args.newName,
          );
          break;
        case "organize_imports":
          edits = organizeImportsEdits(project, resolved.absolute);
          break;
        case "move_symbol_to_file": {
          if (args.symbolName === undefined || args.targetFile === undefined)
            throw new ToolInputError("move_symbol_to_file needs symbolName and targetFile.");
          if (!isTsLike(args.targetFile))
            throw new ToolInputError(
              `targetFile must be a TypeScript or JavaScript file; received "${args.targetFile}".`,
            );
          const target = await access.resolve(args.targetFile, "write");
          edits = moveEdits(project, resolved.absolute, args.symbolName, target.absolute);
          break;
        }
      }
      return applyEdits(access, project, edits, args.preview === true, args.operation);
    },
  });

  registry.register({
    name: "code_generate",
    description:
      "Generate compilable structure with the language service's code fixes: implement_interface (the members an interface or abstract class requires, for symbolName or every class in the file), add_missing_members (members used but not declared), add_missing_imports (imports for names used but not imported), test_skeleton (a test file for the file's exports in the project's test framework, to fill in). Answers the files written; preview returns the diff instead.",
    inputSchema: {
      operation: z
        .enum(["implement_interface", "add_missing_members", "add_missing_imports", "test_skeleton"])
        .describe("What to generate"),
      filePath: filePathField,
      symbolName: symbolField
        .optional()
        .describe("Limit to this class (implement_interface) or export (test_skeleton)"),
      preview: z.boolean().optional().describe("Return the diff without writing anything (default false)"),
    },
    annotations: { destructiveHint: false },
    handler: async (args) => {
      const source = await access.resolve(args.filePath, "read");
      if (args.operation === "test_skeleton") {
        const python = languageOf(source.relative) === "python";
        const project = python ? null : tsFor(source.absolute);
        if (!python && project === null)
          throw new ToolInputError(
            `test_skeleton supports TypeScript, JavaScript and Python files; write a test for ${args.filePath} with write_file.`,
          );
        const testRelative = testPathFor(root, source.relative, python);
        const target = await access.resolve(testRelative, "write");
        if (target.exists)
          throw new ToolInputError(
            `${testRelative} already exists; add to it with code_edit rather than overwrite it.`,
          );
        const text = python
          ? pythonTestSkeleton(root, source.relative, await readFile(source.absolute, "utf8"), args.symbolName)
          : tsTestSkeleton(project!, source.absolute, testRelative, testFramework(root), args.symbolName);
        return applyEdits(
          access,
          workspacePaths,
          new Map([[target.absolute, { before: null, after: text }]]),
          args.preview === true,
          "test_skeleton",
        );
      }
      const project = tsFor(source.absolute);
      if (project === null)
        throw new ToolInputError(
          `${args.operation} needs a TypeScript or JavaScript file; ${args.filePath} has no language service here. Write the code with code_edit.`,
        );
      const edits = codeFixEdits(project, source.absolute, args.operation as FixOperation, args.symbolName);
      if (edits.size === 0)
        return textResult(
          `${args.operation}: nothing to generate in ${source.relative} (the language service reports nothing of that kind${args.symbolName ? ` for ${args.symbolName}` : ""}).`,
          { files: [], preview: args.preview === true },
        );
      return applyEdits(access, project, edits, args.preview === true, args.operation);
    },
  });
}

async function navigateHeuristically(
  access: AccessControl,
  args: {
    operation: string;
    symbolName?: string | undefined;
    filePath?: string | undefined;
    line?: number | undefined;
    column?: number | undefined;
  },
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

async function applyEdits(
  access: AccessControl,
  project: Pick<TsProject, "relative">,
  edits: FileEdits,
  preview: boolean,
  operation: string,
) {
  const changed = [...edits].filter(([, edit]) => edit.before !== edit.after);
  if (changed.length === 0) return textResult(`${operation}: nothing to change.`, { files: [], preview });
  // Every file must be writable before any is written: all or nothing.
  const targets = [];
  for (const [file, edit] of changed)
    targets.push({ resolved: await access.resolve(file, "write"), edit, relative: project.relative(file) });
  const diff = targets.map(({ relative, edit }) => unifiedDiff(relative, edit.before ?? "", edit.after)).join("");
  const files = targets.map(({ relative, edit }) => ({ path: relative, created: edit.before === null }));
  if (!preview) {
    for (const { resolved, edit } of targets) await writeFileBeneath(resolved.root, beneathRoot(resolved), edit.after);
  }
  const shown =
    diff.length > MAX_PREVIEW_CHARS
      ? `${diff.slice(0, MAX_PREVIEW_CHARS)}\n[... diff truncated: ${diff.length - MAX_PREVIEW_CHARS} more characters ...]`
      : diff;
  const summary = `${operation}: ${preview ? "would write" : "wrote"} ${files.length} file${files.length === 1 ? "" : "s"}: ${files.map((file) => file.path).join(", ")}`;
  return textResult(preview ? `${summary}\n\n${shown}` : summary, {
    files,
    preview,
    ...(preview ? { diff: shown } : {}),
  });
}
