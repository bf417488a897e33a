import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AccessControl } from "../permissions/access-control.js";
import { inspectProject } from "../project/project-tool.js";
import { ToolInputError } from "../tool-result.js";
import type { SymbolArgs } from "./code-fields.js";
import { heuristicDefinitions, languageOf } from "./heuristic.js";
import { findPythonSymbol, pythonServerFor, type PythonLanguageServer } from "./python-language-server.js";
import { isTsLike, projectFor, type Position, type TsProject } from "./ts-project.js";

/** A 1-based position in an absolute file, as the Python language server takes it. */
export interface PythonPosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** What every code tool needs: the workspace, its language services, and where a call's symbol is. */
export interface CodeContext {
  readonly access: AccessControl;
  readonly root: string;
  /** How edits name files when no TypeScript project is involved. */
  readonly workspacePaths: Pick<TsProject, "relative">;
  /** The TypeScript project when `file` (or, with no file, the workspace) is TS/JS and TypeScript is available. */
  tsFor(file: string | undefined): TsProject | null;
  /** The Python language server when `file` is Python (or, with no file, the workspace is a Python project) and pyright is available. */
  pythonFor(file: string | undefined): PythonLanguageServer | null;
  /** Where `name` is declared in a Python workspace: in the sources before the tests. */
  pythonDeclaration(name: string): Promise<string>;
  /** The position of the call's symbol in its (Python) file: line and column, or where symbolName is. */
  pythonPosition(args: SymbolArgs): Promise<PythonPosition>;
  /** The position of the call's symbol in the TypeScript project; undefined for neither file nor name. */
  positionIn(project: TsProject, args: SymbolArgs): Promise<Position | undefined>;
}

/** The code tools' shared context for the workspace `access` guards. */
export function createCodeContext(access: AccessControl): CodeContext {
  const root = access.workspace;

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

  async function pythonPosition(args: SymbolArgs): Promise<PythonPosition> {
    const resolved = await access.resolve(args.filePath!, "read");
    if (args.line !== undefined && args.column !== undefined)
      return { file: resolved.absolute, line: args.line, column: args.column };
    if (args.symbolName === undefined) throw new ToolInputError("Give symbolName, or line and column.");
    return {
      file: resolved.absolute,
      ...findPythonSymbol(await readFile(resolved.absolute, "utf8"), args.symbolName, resolved.relative),
    };
  }

  async function positionIn(project: TsProject, args: SymbolArgs): Promise<Position | undefined> {
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

  return {
    access,
    root,
    workspacePaths: { relative: (file: string) => path.relative(root, file) },
    tsFor: (file) => (file === undefined || isTsLike(file) ? projectFor(root) : null),
    pythonFor: (file) => {
      if (file !== undefined) return languageOf(file) === "python" ? pythonServerFor(root) : null;
      return inspectProject(root).language === "python" ? pythonServerFor(root) : null;
    },
    pythonDeclaration,
    pythonPosition,
    positionIn,
  };
}
