import path from "node:path";
import type * as TS from "typescript";
import { ToolInputError } from "../tool-result.js";
import type { Position, TsProject } from "./ts-project.js";

/** One place in the code, with its line for context. */
export interface CodeLocation {
  path: string;
  line: number;
  column: number;
  text: string;
  kind?: string;
  name?: string;
  isDefinition?: boolean;
}

export type NavigateOperation = "definition" | "references" | "implementations" | "callers" | "type_definition" | "document_symbols" | "workspace_symbols";

/** The service's default formatting, with the file's own indentation (tabs, 2 or 4 spaces). */
export function formatFor(project: TsProject, file: string): TS.FormatCodeSettings {
  const text = project.ts.sys.readFile(file) ?? "";
  const indented = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
  const tabs = indented.startsWith("\t");
  const size = tabs ? 4 : indented.length >= 4 && indented.length % 4 === 0 ? 4 : 2;
  return { ...project.ts.getDefaultFormatCodeSettings("\n"), indentSize: size, tabSize: size, convertTabsToSpaces: !tabs };
}

/** Relative imports, new files allowed, and renames that change export names rather than alias them. */
export const PREFERENCES: TS.UserPreferences = { quotePreference: "auto", importModuleSpecifierPreference: "relative", includeCompletionsForModuleExports: true, allowTextChangesInNewFiles: true, providePrefixAndSuffixTextForRename: false };

/** Runs one navigation operation at `at` (or over the project for workspace_symbols). */
export function navigate(project: TsProject, operation: NavigateOperation, at: Position | undefined, query: string | undefined, limit: number): CodeLocation[] {
  const { service } = project;
  const spans = (items: readonly { fileName: string; textSpan: TS.TextSpan }[] | undefined) => (items ?? []).map((item) => project.location(item.fileName, item.textSpan.start));
  switch (operation) {
    case "workspace_symbols": {
      if (query === undefined) throw new ToolInputError("workspace_symbols needs symbolName: the name (or a prefix or camel-case abbreviation) to look for.");
      return service
        .getNavigateToItems(query, limit * 4)
        .filter((item) => !item.fileName.includes("/node_modules/"))
        .slice(0, limit)
        .map((item) => ({ ...project.location(item.fileName, item.textSpan.start), kind: item.kind, name: item.containerName ? `${item.containerName}.${item.name}` : item.name }));
    }
    case "document_symbols": {
      if (at === undefined) throw new ToolInputError("document_symbols needs filePath.");
      const out: CodeLocation[] = [];
      const walk = (item: TS.NavigationTree, container: string | undefined) => {
        for (const child of item.childItems ?? []) {
          if (child.kind === "alias") continue;
          const name = container ? `${container}.${child.text}` : child.text;
          out.push({ ...project.location(at.file, (child.nameSpan ?? child.spans[0]!).start), kind: child.kind, name });
          walk(child, name);
        }
      };
      walk(service.getNavigationTree(at.file), undefined);
      return out.slice(0, limit);
    }
  }
  const { file, offset } = need(at, operation);
  switch (operation) {
    case "definition":
      return spans(service.getDefinitionAtPosition(file, offset)).slice(0, limit);
    case "type_definition":
      return spans(service.getTypeDefinitionAtPosition(file, offset)).slice(0, limit);
    case "implementations":
      return spans(service.getImplementationAtPosition(file, offset)).slice(0, limit);
    case "references": {
      const references = (service.findReferences(file, offset) ?? []).flatMap((symbol) => symbol.references);
      return references.slice(0, limit).map((reference) => ({ ...project.location(reference.fileName, reference.textSpan.start), isDefinition: reference.isDefinition === true }));
    }
    case "callers": {
      const prepared = service.prepareCallHierarchy(file, offset);
      const items = prepared === undefined ? [] : Array.isArray(prepared) ? prepared : [prepared];
      const out: CodeLocation[] = [];
      for (const item of items) {
        for (const call of service.provideCallHierarchyIncomingCalls(item.file, item.selectionSpan.start)) {
          for (const span of call.fromSpans) out.push({ ...project.location(call.from.file, span.start), kind: call.from.kind, name: call.from.name });
        }
      }
      return out.slice(0, limit);
    }
  }
}

function need(at: Position | undefined, operation: string): Position {
  if (at === undefined) throw new ToolInputError(`${operation} needs a symbol: filePath with symbolName or line and column, or symbolName alone to find its declaration.`);
  return at;
}

/** What `code_inspect` answers. */
export interface Inspection {
  name: string;
  kind: string;
  modifiers: string;
  signature: string;
  documentation: string;
  tags: { name: string; text: string }[];
  declaredAt: CodeLocation[];
  members: { name: string; kind: string; type: string }[];
}

/** The symbol at a position: kind, signature, doc comment, declaration and members. */
export function inspect(project: TsProject, at: Position): Inspection {
  const info = project.service.getQuickInfoAtPosition(at.file, at.offset);
  if (info === undefined) throw new ToolInputError(`There is no symbol at ${project.relative(at.file)}:${at.line}:${at.column}.`);
  const text = (parts: readonly TS.SymbolDisplayPart[] | undefined) => (parts ?? []).map((part) => part.text).join("");
  const declaredAt = (project.service.getDefinitionAtPosition(at.file, at.offset) ?? []).map((definition) => project.location(definition.fileName, definition.textSpan.start));
  const source = project.sourceFile(at.file);
  const node = tokenAt(project.ts, source, at.offset);
  const checker = project.program().getTypeChecker();
  const symbol = node === undefined ? undefined : checker.getSymbolAtLocation(node);
  const members: Inspection["members"] = [];
  if (symbol !== undefined && node !== undefined) {
    const target = symbol.flags & project.ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const typeLike = target.flags & (project.ts.SymbolFlags.Class | project.ts.SymbolFlags.Interface | project.ts.SymbolFlags.Enum | project.ts.SymbolFlags.TypeAlias);
    if (typeLike) {
      const type = checker.getDeclaredTypeOfSymbol(target);
      for (const member of checker.getPropertiesOfType(type).slice(0, 100)) {
        const declaration = member.valueDeclaration ?? member.declarations?.[0];
        const memberType = declaration === undefined ? checker.getTypeOfSymbol(member) : checker.getTypeOfSymbolAtLocation(member, declaration);
        members.push({ name: member.getName(), kind: member.flags & project.ts.SymbolFlags.Method ? "method" : "property", type: checker.typeToString(memberType, undefined, project.ts.TypeFormatFlags.NoTruncation) });
      }
    }
  }
  return {
    name: node !== undefined && (project.ts.isIdentifier(node) || project.ts.isPrivateIdentifier(node)) ? node.text : source.text.slice(info.textSpan.start, info.textSpan.start + info.textSpan.length),
    kind: info.kind,
    modifiers: info.kindModifiers,
    signature: text(info.displayParts),
    documentation: text(info.documentation),
    tags: (info.tags ?? []).map((tag) => ({ name: tag.name, text: text(tag.text) })),
    declaredAt,
    members,
  };
}

function tokenAt(ts: typeof TS, source: TS.SourceFile, offset: number): TS.Node | undefined {
  let found: TS.Node | undefined;
  const visit = (node: TS.Node): void => {
    if (offset < node.getStart(source) || offset >= node.getEnd()) return;
    if (node.getChildCount(source) === 0 || ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      found = node;
      return;
    }
    node.getChildren(source).forEach(visit);
  };
  visit(source);
  return found;
}

/** Edits to files, keyed by absolute path; a null `before` means the file is new. */
export type FileEdits = Map<string, { before: string | null; after: string }>;

/** Applies the service's text changes in memory (nothing is written here). */
export function applyChanges(project: TsProject, changes: readonly TS.FileTextChanges[], into: FileEdits = new Map()): FileEdits {
  for (const change of changes) {
    const existing = into.get(change.fileName);
    const before = existing !== undefined ? existing.before : change.isNewFile ? null : (project.text(change.fileName) ?? null);
    let text = existing?.after ?? before ?? "";
    for (const edit of [...change.textChanges].sort((a, b) => b.span.start - a.span.start)) {
      text = text.slice(0, edit.span.start) + edit.newText + text.slice(edit.span.start + edit.span.length);
    }
    into.set(change.fileName, { before: change.isNewFile ? null : before, after: text });
  }
  return into;
}

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
    list.push({ span: location.textSpan, newText: `${location.prefixText ?? ""}${newName}${location.suffixText ?? ""}` });
    byFile.set(location.fileName, list);
  }
  const outside = [...byFile.keys()].filter((file) => project.relative(file) === file || file.includes("/node_modules/"));
  if (outside.length > 0) throw new ToolInputError(`The rename would change files outside the workspace's sources (${outside.slice(0, 3).join(", ")}); it is declared in a library.`);
  return applyChanges(project, [...byFile].map(([fileName, textChanges]) => ({ fileName, textChanges })));
}

/** Extract function or variable from lines startLine..endLine of a file. */
export function extractEdits(project: TsProject, file: string, kind: "function" | "constant", startLine: number, endLine: number, newName: string | undefined): FileEdits {
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
  const offered = refactors.filter((refactor) => refactor.name === "Extract Symbol").flatMap((refactor) => refactor.actions);
  const prefix = kind === "function" ? "function_scope_" : "constant_scope_";
  const actions = offered.filter((action) => action.name.startsWith(prefix) && action.notApplicableReason === undefined);
  if (actions.length === 0) {
    const reason = offered.find((action) => action.name.startsWith(prefix))?.notApplicableReason;
    throw new ToolInputError(`Lines ${startLine}-${endLine} of ${project.relative(file)} cannot be extracted to a ${kind === "function" ? "function" : "variable"}${reason ? `: ${reason}` : ""}. Select whole statements (for a function) or one expression (for a variable).`);
  }
  // The outermost scope (module level) keeps the new symbol reusable.
  const action = actions.sort((a, b) => Number(b.name.slice(prefix.length)) - Number(a.name.slice(prefix.length)))[0]!;
  const edits = project.service.getEditsForRefactor(file, formatFor(project, file), range, "Extract Symbol", action.name, PREFERENCES);
  if (edits === undefined) throw new ToolInputError("The language service produced no edits for this extraction.");
  const result = applyChanges(project, edits.edits);
  if (newName !== undefined) {
    checkIdentifier(newName);
    for (const [fileName, edit] of result) {
      const generated = kind === "function" ? /\bnewFunction(\d*)\b/g : /\bnewLocal(\d*)\b/g;
      const original = edit.before ?? "";
      const fresh = [...edit.after.matchAll(generated)].map((match) => match[0]).filter((name) => !new RegExp(`\\b${name}\\b`).test(original));
      let after = edit.after;
      for (const name of new Set(fresh)) after = after.replace(new RegExp(`\\b${name}\\b`, "g"), newName);
      result.set(fileName, { ...edit, after });
    }
  }
  return result;
}

/** organize_imports: sorted, merged and unused ones removed. */
export function organizeImportsEdits(project: TsProject, file: string): FileEdits {
  return applyChanges(project, project.service.organizeImports({ type: "file", fileName: file }, formatFor(project, file), PREFERENCES));
}

const RESERVED = new Set("break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await".split(" "));

function checkIdentifier(name: string): void {
  if (!/^[A-Za-z_$][\w$]*$/.test(name) || RESERVED.has(name)) throw new ToolInputError(`"${name}" is not a valid identifier: use letters, digits, _ and $, not starting with a digit, and not a reserved word.`);
}

/** For a variable: a whole statement's value (initializer, expression, returned value) rather than the statement. */
function expressionWithin(ts: typeof TS, source: TS.SourceFile, range: { pos: number; end: number }): { pos: number; end: number } {
  let statement: TS.VariableStatement | TS.ExpressionStatement | TS.ReturnStatement | undefined;
  const visit = (node: TS.Node): void => {
    if (node.getStart(source) > range.pos || node.getEnd() < range.end) return;
    if (ts.isVariableStatement(node) || ts.isExpressionStatement(node) || ts.isReturnStatement(node)) statement = node;
    node.forEachChild(visit);
  };
  visit(source);
  if (statement === undefined || statement.getStart(source) !== range.pos) return range;
  const found: TS.VariableStatement | TS.ExpressionStatement | TS.ReturnStatement = statement;
  const value = ts.isVariableStatement(found) ? (found.declarationList.declarations.length === 1 ? found.declarationList.declarations[0]!.initializer : undefined) : found.expression;
  return value === undefined ? range : { pos: value.getStart(source), end: value.getEnd() };
}

/**
 * Moves a top-level declaration to `target` and fixes every import. Uses the service's
 * "Move to file" where it has it (TypeScript 5.2+, target may exist), else "Move to a new
 * file", whose generated file is then placed at `target` with its imports rebased.
 */
export function moveEdits(project: TsProject, file: string, symbolName: string, target: string): FileEdits {
  const { ts } = project;
  const source = project.sourceFile(file);
  const statement = source.statements.find((node) => {
    const named = node as TS.Node & { name?: TS.Node };
    if (named.name !== undefined && ts.isIdentifier(named.name) && named.name.text === symbolName) return true;
    return ts.isVariableStatement(node) && node.declarationList.declarations.some((declaration) => ts.isIdentifier(declaration.name) && declaration.name.text === symbolName);
  });
  if (statement === undefined) throw new ToolInputError(`No top-level declaration named "${symbolName}" in ${project.relative(file)}; only top-level functions, classes, interfaces, types, enums and variables can be moved.`);
  if (path.resolve(target) === path.resolve(file)) throw new ToolInputError("targetFile is the file the symbol is already in.");
  const range = { pos: statement.getStart(source), end: statement.getEnd() };
  const format = formatFor(project, file);
  const offered = project.service.getApplicableRefactors(file, range, PREFERENCES, undefined, undefined, true).flatMap((refactor) => refactor.actions.map((action) => ({ refactor: refactor.name, action })));
  const moveToFile = offered.find(({ action }) => action.name === "Move to file");
  if (moveToFile !== undefined) {
    const edits = project.service.getEditsForRefactor(file, format, range, moveToFile.refactor, moveToFile.action.name, PREFERENCES, { targetFile: target });
    if (edits === undefined) throw new ToolInputError("The language service produced no edits for this move.");
    return redirectReExports(project, applyChanges(project, edits.edits), file, target, symbolName);
  }
  const moveToNew = offered.find(({ action }) => action.name === "Move to a new file");
  if (moveToNew === undefined) throw new ToolInputError(`${symbolName} cannot be moved: the language service offers no move for it.`);
  if (ts.sys.fileExists(target)) throw new ToolInputError(`${project.relative(target)} exists; this TypeScript (${ts.version}) can only move into a new file. Choose a new targetFile, or move by hand with code_edit.`);
  const edits = project.service.getEditsForRefactor(file, format, range, moveToNew.refactor, moveToNew.action.name, PREFERENCES);
  const created = edits?.edits.find((change) => change.isNewFile);
  if (edits === undefined || created === undefined) throw new ToolInputError("The language service produced no edits for this move.");
  const moved = applyChanges(project, edits.edits);
  const generated = created.fileName;
  const result: FileEdits = new Map();
  const specifier = (from: string, to: string, withJs: boolean) => {
    let relative = path.relative(path.dirname(from), to).split(path.sep).join("/").replace(/\.[cm]?[jt]sx?$/, "");
    if (!relative.startsWith(".")) relative = `./${relative}`;
    return withJs ? `${relative}.js` : relative;
  };
  for (const [name, edit] of moved) {
    if (name === generated) {
      // The new file's own relative imports, rebased from the generated place to the target.
      const after = edit.after.replace(/(from\s+["'])(\.[^"']*)(["'])/g, (_all, open: string, spec: string, close: string) => {
        const absolute = path.resolve(path.dirname(generated), spec.replace(/\.js$/, ""));
        return `${open}${specifier(target, absolute, spec.endsWith(".js"))}${close}`;
      });
      result.set(target, { before: null, after });
      continue;
    }
    const oldSpec = specifier(name, generated, false);
    const after = edit.after.replace(new RegExp(`(["'])${oldSpec.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\.js)?\\1`, "g"), (_all, quote: string, js: string | undefined) => `${quote}${specifier(name, target, js !== undefined)}${quote}`);
    result.set(name, { ...edit, after });
  }
  return redirectReExports(project, result, file, target, symbolName);
}

/** `export { name } from "./old"` statements the service left pointing at the old module now point at the new one. */
function redirectReExports(project: TsProject, edits: FileEdits, from: string, to: string, symbolName: string): FileEdits {
  const stripped = (file: string) => file.replace(/\.[cm]?[jt]sx?$/, "");
  for (const source of project.program().getSourceFiles()) {
    const file = source.fileName;
    if (file.includes("/node_modules/") || /\.d\.[cm]?ts$/.test(file) || file === from) continue;
    const before = edits.get(file)?.after ?? source.text;
    const after = before.replace(/export\s*\{([^}]*)\}\s*from\s*(["'])(\.[^"']*)\2;?/g, (statement, list: string, quote: string, spec: string) => {
      if (stripped(path.resolve(path.dirname(file), spec.replace(/\.js$/, ""))) !== stripped(from)) return statement;
      const items = list.split(",").map((item) => item.trim()).filter((item) => item !== "");
      const movedItems = items.filter((item) => item.split(/\s+as\s+/)[0] === symbolName);
      if (movedItems.length === 0) return statement;
      const rest = items.filter((item) => !movedItems.includes(item));
      let target = path.relative(path.dirname(file), stripped(to)).split(path.sep).join("/");
      if (!target.startsWith(".")) target = `./${target}`;
      if (spec.endsWith(".js")) target += ".js";
      const moved = `export { ${movedItems.join(", ")} } from ${quote}${target}${quote};`;
      return rest.length === 0 ? moved : `export { ${rest.join(", ")} } from ${quote}${spec}${quote};\n${moved}`;
    });
    if (after !== before) edits.set(file, { before: edits.get(file)?.before ?? source.text, after });
  }
  return edits;
}
