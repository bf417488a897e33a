import path from "node:path";
import type * as TS from "typescript";
import { ToolInputError } from "../tool-result.js";
import { applyChanges, formatFor, PREFERENCES, type FileEdits } from "./ts-edits.js";
import type { TsProject } from "./ts-project.js";

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
    return (
      ts.isVariableStatement(node) &&
      node.declarationList.declarations.some(
        (declaration) => ts.isIdentifier(declaration.name) && declaration.name.text === symbolName,
      )
    );
  });
  if (statement === undefined)
    throw new ToolInputError(
      `No top-level declaration named "${symbolName}" in ${project.relative(file)}; only top-level functions, classes, interfaces, types, enums and variables can be moved.`,
    );
  if (path.resolve(target) === path.resolve(file))
    throw new ToolInputError("targetFile is the file the symbol is already in.");
  const range = { pos: statement.getStart(source), end: statement.getEnd() };
  const format = formatFor(project, file);
  const offered = project.service
    .getApplicableRefactors(file, range, PREFERENCES, undefined, undefined, true)
    .flatMap((refactor) => refactor.actions.map((action) => ({ refactor: refactor.name, action })));
  const moveToFile = offered.find(({ action }) => action.name === "Move to file");
  if (moveToFile !== undefined) {
    const edits = project.service.getEditsForRefactor(
      file,
      format,
      range,
      moveToFile.refactor,
      moveToFile.action.name,
      PREFERENCES,
      { targetFile: target },
    );
    if (edits === undefined) throw new ToolInputError("The language service produced no edits for this move.");
    return redirectReExports(project, applyChanges(project, edits.edits), file, target, symbolName);
  }
  const moveToNew = offered.find(({ action }) => action.name === "Move to a new file");
  if (moveToNew === undefined)
    throw new ToolInputError(`${symbolName} cannot be moved: the language service offers no move for it.`);
  if (ts.sys.fileExists(target))
    throw new ToolInputError(
      `${project.relative(target)} exists; this TypeScript (${ts.version}) can only move into a new file. Choose a new targetFile, or move by hand with code_edit.`,
    );
  const edits = project.service.getEditsForRefactor(
    file,
    format,
    range,
    moveToNew.refactor,
    moveToNew.action.name,
    PREFERENCES,
  );
  const created = edits?.edits.find((change) => change.isNewFile);
  if (edits === undefined || created === undefined)
    throw new ToolInputError("The language service produced no edits for this move.");
  const moved = applyChanges(project, edits.edits);
  const generated = created.fileName;
  const result: FileEdits = new Map();
  const specifier = (from: string, to: string, withJs: boolean) => {
    let relative = path
      .relative(path.dirname(from), to)
      .split(path.sep)
      .join("/")
      .replace(/\.[cm]?[jt]sx?$/, "");
    if (!relative.startsWith(".")) relative = `./${relative}`;
    return withJs ? `${relative}.js` : relative;
  };
  for (const [name, edit] of moved) {
    if (name === generated) {
      // The new file's own relative imports, rebased from the generated place to the target.
      const after = edit.after.replace(
        /(from\s+["'])(\.[^"']*)(["'])/g,
        (_all, open: string, spec: string, close: string) => {
          const absolute = path.resolve(path.dirname(generated), spec.replace(/\.js$/, ""));
          return `${open}${specifier(target, absolute, spec.endsWith(".js"))}${close}`;
        },
      );
      result.set(target, { before: null, after });
      continue;
    }
    const oldSpec = specifier(name, generated, false);
    const after = edit.after.replace(
      new RegExp(`(["'])${oldSpec.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\.js)?\\1`, "g"),
      (_all, quote: string, js: string | undefined) => `${quote}${specifier(name, target, js !== undefined)}${quote}`,
    );
    result.set(name, { ...edit, after });
  }
  return redirectReExports(project, result, file, target, symbolName);
}

/** `export { name } from "./old"` statements the service left pointing at the old module now point at the new one. */
function redirectReExports(
  project: TsProject,
  edits: FileEdits,
  from: string,
  to: string,
  symbolName: string,
): FileEdits {
  const stripped = (file: string) => file.replace(/\.[cm]?[jt]sx?$/, "");
  for (const source of project.program().getSourceFiles()) {
    const file = source.fileName;
    if (file.includes("/node_modules/") || /\.d\.[cm]?ts$/.test(file) || file === from) continue;
    const before = edits.get(file)?.after ?? source.text;
    const after = before.replace(
      /export\s*\{([^}]*)\}\s*from\s*(["'])(\.[^"']*)\2;?/g,
      (statement, list: string, quote: string, spec: string) => {
        if (stripped(path.resolve(path.dirname(file), spec.replace(/\.js$/, ""))) !== stripped(from)) return statement;
        const items = list
          .split(",")
          .map((item) => item.trim())
          .filter((item) => item !== "");
        const movedItems = items.filter((item) => item.split(/\s+as\s+/)[0] === symbolName);
        if (movedItems.length === 0) return statement;
        const rest = items.filter((item) => !movedItems.includes(item));
        let target = path.relative(path.dirname(file), stripped(to)).split(path.sep).join("/");
        if (!target.startsWith(".")) target = `./${target}`;
        if (spec.endsWith(".js")) target += ".js";
        const moved = `export { ${movedItems.join(", ")} } from ${quote}${target}${quote};`;
        return rest.length === 0 ? moved : `export { ${rest.join(", ")} } from ${quote}${spec}${quote};\n${moved}`;
      },
    );
    if (after !== before) edits.set(file, { before: edits.get(file)?.before ?? source.text, after });
  }
  return edits;
}
