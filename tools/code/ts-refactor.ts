import type * as TS from "typescript";
import { ToolInputError } from "../tool-result.js";
import { applyChanges, formatFor, PREFERENCES, type FileEdits } from "./ts-edits.js";
import type { Position, TsProject } from "./ts-project.js";

/** Rename: every reference and import across the project; strings and comments stay. */
export function renameEdits(project: TsProject, at: Position, newName: string): FileEdits {
  const info = project.service.getRenameInfo(at.file, at.offset, { allowRenameOfImportPath: false });
  if (!info.canRename) throw new ToolInputError(`Cannot rename here: ${info.localizedErrorMessage}`);
  checkIdentifier(newName);
  // No prefix/suffix text: a rename changes export and import names too, rather than aliasing them.
  const locations = project.service.findRenameLocations(at.file, at.offset, false, false, false) ?? [];
  const byFile = new Map<string, TS.TextChange[]>();
  for (const location of locations) {
    const list = byFile.get(location.fileName) ?? [];
    list.push({
      span: location.textSpan,
      newText: `${location.prefixText ?? ""}${newName}${location.suffixText ?? ""}`,
    });
    byFile.set(location.fileName, list);
  }
  const outside = [...byFile.keys()].filter(
    (file) => project.relative(file) === file || file.includes("/node_modules/"),
  );
  if (outside.length > 0)
    throw new ToolInputError(
      `The rename would change files outside the workspace's sources (${outside.slice(0, 3).join(", ")}); it is declared in a library.`,
    );
  return applyChanges(
    project,
    [...byFile].map(([fileName, textChanges]) => ({ fileName, textChanges })),
  );
}

/** Extract function or variable from lines startLine..endLine of a file. */
export function extractEdits(
  project: TsProject,
  file: string,
  kind: "function" | "constant",
  startLine: number,
  endLine: number,
  newName: string | undefined,
): FileEdits {
  const source = project.sourceFile(file);
  const start = project.at(file, startLine, 1).offset;
  const lastLine = project.at(file, endLine, 1);
  const lineEnd = endLine < source.getLineStarts().length ? source.getLineStarts()[endLine]! - 1 : source.text.length;
  // Trim the range to its code so the service sees a whole statement or expression.
  let from = start;
  let to = Math.max(lineEnd, lastLine.offset);
  while (from < to && /\s/.test(source.text[from]!)) from += 1;
  while (to > from && /[\s;]/.test(source.text[to - 1]!)) to -= 1;
  let range = { pos: from, end: kind === "function" && source.text[to] === ";" ? to + 1 : to };
  if (kind === "constant") range = expressionWithin(project.ts, source, range);
  const refactors = project.service.getApplicableRefactors(file, range, PREFERENCES, undefined, undefined);
  // The service answers one "Extract Symbol" entry per kind (function, constant).
  const offered = refactors
    .filter((refactor) => refactor.name === "Extract Symbol")
    .flatMap((refactor) => refactor.actions);
  const prefix = kind === "function" ? "function_scope_" : "constant_scope_";
  const actions = offered.filter(
    (action) => action.name.startsWith(prefix) && action.notApplicableReason === undefined,
  );
  if (actions.length === 0) {
    const reason = offered.find((action) => action.name.startsWith(prefix))?.notApplicableReason;
    throw new ToolInputError(
      `Lines ${startLine}-${endLine} of ${project.relative(file)} cannot be extracted to a ${kind === "function" ? "function" : "variable"}${reason ? `: ${reason}` : ""}. Select whole statements (for a function) or one expression (for a variable).`,
    );
  }
  // The outermost scope (module level) keeps the new symbol reusable.
  const action = actions.sort((a, b) => Number(b.name.slice(prefix.length)) - Number(a.name.slice(prefix.length)))[0]!;
  const edits = project.service.getEditsForRefactor(
    file,
    formatFor(project, file),
    range,
    "Extract Symbol",
    action.name,
    PREFERENCES,
  );
  if (edits === undefined) throw new ToolInputError("The language service produced no edits for this extraction.");
  const result = applyChanges(project, edits.edits);
  if (newName !== undefined) {
    checkIdentifier(newName);
    for (const [fileName, edit] of result) {
      const generated = kind === "function" ? /\bnewFunction(\d*)\b/g : /\bnewLocal(\d*)\b/g;
      const original = edit.before ?? "";
      const fresh = [...edit.after.matchAll(generated)]
        .map((match) => match[0])
        .filter((name) => !new RegExp(`\\b${name}\\b`).test(original));
      let after = edit.after;
      for (const name of new Set(fresh)) after = after.replace(new RegExp(`\\b${name}\\b`, "g"), newName);
      result.set(fileName, { ...edit, after });
    }
  }
  return result;
}

/** organize_imports: sorted, merged and unused ones removed. */
export function organizeImportsEdits(project: TsProject, file: string): FileEdits {
  return applyChanges(
    project,
    project.service.organizeImports({ type: "file", fileName: file }, formatFor(project, file), PREFERENCES),
  );
}

const RESERVED = new Set(
  "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await".split(
    " ",
  ),
);

function checkIdentifier(name: string): void {
  if (!/^[A-Za-z_$][\w$]*$/.test(name) || RESERVED.has(name))
    throw new ToolInputError(
      `"${name}" is not a valid identifier: use letters, digits, _ and $, not starting with a digit, and not a reserved word.`,
    );
}

/** For a variable: a whole statement's value (initializer, expression, returned value) rather than the statement. */
function expressionWithin(
  ts: typeof TS,
  source: TS.SourceFile,
  range: { pos: number; end: number },
): { pos: number; end: number } {
  let statement: TS.VariableStatement | TS.ExpressionStatement | TS.ReturnStatement | undefined;
  const visit = (node: TS.Node): void => {
    if (node.getStart(source) > range.pos || node.getEnd() < range.end) return;
    if (ts.isVariableStatement(node) || ts.isExpressionStatement(node) || ts.isReturnStatement(node)) statement = node;
    node.forEachChild(visit);
  };
  visit(source);
  if (statement === undefined || statement.getStart(source) !== range.pos) return range;
  const found: TS.VariableStatement | TS.ExpressionStatement | TS.ReturnStatement = statement;
  const value = ts.isVariableStatement(found)
    ? found.declarationList.declarations.length === 1
      ? found.declarationList.declarations[0]!.initializer
      : undefined
    : found.expression;
  return value === undefined ? range : { pos: value.getStart(source), end: value.getEnd() };
}
