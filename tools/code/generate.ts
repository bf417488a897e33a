import { readFileSync } from "node:fs";
import { pathExists } from "../fs/exists.js";
import path from "node:path";
import type * as TS from "typescript";
import { ToolInputError } from "../tool-result.js";
import { applyChanges, formatFor, PREFERENCES, type FileEdits } from "./ts-operations.js";
import type { TsProject } from "./ts-project.js";

/** The service's code fixes, by the diagnostics they repair. */
const FIXES = {
  implement_interface: {
    codes: [2420, 2515, 2653, 2654, 18052],
    fixes: ["fixClassIncorrectlyImplementsInterface", "fixClassDoesntImplementInheritedAbstractMember"],
  },
  add_missing_members: {
    codes: [2339, 2551, 2741, 2739, 2740],
    fixes: ["fixMissingMember", "fixMissingProperties", "fixMissingFunctionDeclaration"],
  },
  add_missing_imports: { codes: [2304, 2552, 2503, 2686, 2693, 2708], fixes: ["import", "fixMissingImport"] },
} as const;

export type FixOperation = keyof typeof FIXES;

/**
 * Applies the language service's fixes of one kind to a file (or only to `symbolName`'s
 * declaration there): members an interface or abstract class requires, members used but
 * not declared, imports of names used but not imported.
 */
export function codeFixEdits(
  project: TsProject,
  file: string,
  operation: FixOperation,
  symbolName: string | undefined,
): FileEdits {
  const { codes, fixes: wanted } = FIXES[operation];
  const source = project.sourceFile(file);
  let diagnostics = project.service
    .getSemanticDiagnostics(file)
    .filter((diagnostic) => (codes as readonly number[]).includes(diagnostic.code) && diagnostic.start !== undefined);
  if (symbolName !== undefined) {
    const declaration = declarationNamed(project.ts, source, symbolName);
    if (declaration === undefined)
      throw new ToolInputError(`No class or object named "${symbolName}" in ${project.relative(file)}.`);
    diagnostics = diagnostics.filter(
      (diagnostic) => diagnostic.start! >= declaration.getStart(source) && diagnostic.start! < declaration.getEnd(),
    );
  }
  const edits: FileEdits = new Map();
  const format = formatFor(project, file);
  // All fixes are computed against the current text; fixes for distinct diagnostics do not
  // overlap, and mergeChanges keeps the same fix reached from two diagnostics once.
  const changes: TS.FileTextChanges[] = [];
  for (const diagnostic of diagnostics) {
    const fixes = project.service.getCodeFixesAtPosition(
      file,
      diagnostic.start!,
      diagnostic.start! + (diagnostic.length ?? 0),
      [diagnostic.code],
      format,
      PREFERENCES,
    );
    const fix = fixes.find(
      (candidate) =>
        (wanted as readonly string[]).includes(candidate.fixName) ||
        (wanted as readonly string[]).includes(String(candidate.fixId)),
    );
    if (fix === undefined) continue;
    changes.push(...fix.changes);
  }
  if (changes.length === 0) return edits;
  applyChanges(project, mergeChanges(changes), edits);
  return operation === "add_missing_members" ? withInitializers(project, file, edits) : edits;
}

/**
 * Under strictPropertyInitialization a generated `count: number;` does not compile; a
 * second pass over the generated text gives new properties an initializer (or, where the
 * service has none, a definite-assignment assertion).
 */
function withInitializers(project: TsProject, file: string, edits: FileEdits): FileEdits {
  const before = new Set(
    project.service
      .getSemanticDiagnostics(file)
      .filter((diagnostic) => diagnostic.code === 2564)
      .map((diagnostic) => diagnostic.start),
  );
  const texts = new Map([...edits].map(([name, edit]) => [name, edit.after]));
  const second = project.overlaid(texts, () => {
    const format = formatFor(project, file);
    const changes: TS.FileTextChanges[] = [];
    for (const diagnostic of project.service.getSemanticDiagnostics(file)) {
      if (diagnostic.code !== 2564 || diagnostic.start === undefined || before.has(diagnostic.start)) continue;
      const fixes = project.service.getCodeFixesAtPosition(
        file,
        diagnostic.start,
        diagnostic.start + (diagnostic.length ?? 0),
        [2564],
        format,
        PREFERENCES,
      );
      // The service names all three fixes "strictClassInitialization"; their descriptions differ.
      const fix =
        fixes.find((candidate) => /initializer/i.test(candidate.description)) ??
        fixes.find((candidate) => /definite assignment/i.test(candidate.description));
      if (fix !== undefined) changes.push(...fix.changes);
    }
    return applyChanges(project, mergeChanges(changes));
  });
  for (const [name, edit] of second) edits.set(name, { before: edits.get(name)?.before ?? null, after: edit.after });
  return edits;
}

/** Merges text changes per file and drops exact duplicates (two diagnostics, one fix). */
function mergeChanges(changes: readonly TS.FileTextChanges[]): TS.FileTextChanges[] {
  const byFile = new Map<string, { isNewFile?: boolean; textChanges: TS.TextChange[]; keys: Set<string> }>();
  for (const change of changes) {
    const entry = byFile.get(change.fileName) ?? {
      ...(change.isNewFile ? { isNewFile: true } : {}),
      textChanges: [],
      keys: new Set<string>(),
    };
    for (const edit of change.textChanges) {
      const key = `${edit.span.start}:${edit.span.length}:${edit.newText}`;
      if (entry.keys.has(key)) continue;
      entry.keys.add(key);
      entry.textChanges.push(edit);
    }
    byFile.set(change.fileName, entry);
  }
  return [...byFile].map(([fileName, { isNewFile, textChanges }]) => ({
    fileName,
    textChanges,
    ...(isNewFile ? { isNewFile } : {}),
  }));
}

function declarationNamed(ts: typeof TS, source: TS.SourceFile, name: string): TS.Node | undefined {
  let found: TS.Node | undefined;
  const visit = (node: TS.Node): void => {
    if (found !== undefined) return;
    if (
      (ts.isClassDeclaration(node) ||
        ts.isClassExpression(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isVariableDeclaration(node) ||
        ts.isFunctionDeclaration(node)) &&
      node.name !== undefined &&
      ts.isIdentifier(node.name) &&
      node.name.text === name
    )
      found = node;
    else ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The test framework a JS/TS project uses, from its package.json. */
export function testFramework(root: string): "vitest" | "jest" | "mocha" | "node:test" {
  try {
    const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
      scripts?: Record<string, string>;
    };
    const dependencies = { ...manifest.dependencies, ...manifest.devDependencies };
    const test = manifest.scripts?.test ?? "";
    if ("vitest" in dependencies || /\bvitest\b/.test(test)) return "vitest";
    if ("jest" in dependencies || /\bjest\b/.test(test)) return "jest";
    if ("mocha" in dependencies || /\bmocha\b/.test(test)) return "mocha";
  } catch {
    // No manifest: node's own runner.
  }
  return "node:test";
}

/** Where a test for `relative` goes: the project's test directory if it has one, else beside it. */
export function testPathFor(root: string, relative: string, python: boolean): string {
  const parsed = path.posix.parse(relative);
  if (python) {
    const directory = ["tests", "test"].find((candidate) => pathExists(path.join(root, candidate))) ?? parsed.dir;
    return path.posix.join(directory, `test_${parsed.name}.py`);
  }
  const extension = parsed.ext;
  const directory = ["test", "tests", "__tests__"].find((candidate) => pathExists(path.join(root, candidate)));
  const withoutSource = parsed.dir.replace(/^src(\/|$)/, "");
  return directory === undefined
    ? path.posix.join(parsed.dir, `${parsed.name}.test${extension}`)
    : path.posix.join(directory, withoutSource, `${parsed.name}.test${extension}`);
}

/** A test file with one pending case per exported function and class of a TS/JS file. */
export function tsTestSkeleton(
  project: TsProject,
  file: string,
  testRelative: string,
  framework: ReturnType<typeof testFramework>,
  only: string | undefined,
): string {
  const source = project.sourceFile(file);
  const checker = project.program().getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(source);
  // By type rather than by declaration kind, so CommonJS `module.exports = { f }` counts too.
  const kindOf = (symbol: TS.Symbol): "class" | "function" | null => {
    const type = checker.getTypeOfSymbolAtLocation(symbol, source);
    if (type.getConstructSignatures().length > 0) return "class";
    return type.getCallSignatures().length > 0 ? "function" : null;
  };
  const exported = (moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol)).filter(
    (symbol) => kindOf(symbol) !== null && (only === undefined || symbol.getName() === only),
  );
  if (exported.length === 0)
    throw new ToolInputError(
      only === undefined
        ? `${project.relative(file)} exports no function or class to test.`
        : `${project.relative(file)} exports no function or class named "${only}".`,
    );
  const names = exported.map((symbol) => symbol.getName()).filter((name) => name !== "default");
  let specifier = path.posix
    .relative(path.posix.dirname(testRelative), project.relative(file))
    .replace(/\.[cm]?[jt]sx?$/, "");
  if (!specifier.startsWith(".")) specifier = `./${specifier}`;
  const esm = /^\s*(import|export)\s/m.test(source.text) || /\.m[jt]s$/.test(file);
  const usesJsExtension = /from\s+["']\.[^"']*\.js["']/.test(source.text);
  const importPath = usesJsExtension ? `${specifier}.js` : specifier;
  const lines: string[] = [];
  if (framework === "vitest") lines.push('import { describe, expect, it } from "vitest";');
  if (framework === "node:test")
    lines.push(
      esm
        ? 'import { describe, it } from "node:test";\nimport assert from "node:assert/strict";'
        : 'const { describe, it } = require("node:test");\nconst assert = require("node:assert/strict");',
    );
  lines.push(
    esm
      ? `import { ${names.join(", ")} } from "${importPath}";`
      : `const { ${names.join(", ")} } = require("${importPath}");`,
    "",
  );
  for (const symbol of exported) {
    const name = symbol.getName();
    const isClass = kindOf(symbol) === "class";
    const reference = framework === "node:test" ? `assert.ok(${name});` : `expect(${name}).toBeDefined();`;
    lines.push(
      `describe("${name}", () => {`,
      `  it("${isClass ? "constructs" : "works"} (to write)", () => {`,
      `    // TODO: arrange, act and assert ${isClass ? `new ${name}(…)` : `${name}(…)`}`,
      `    ${reference}`,
      "  });",
      "});",
      "",
    );
  }
  return lines.join("\n");
}

/** A pytest file with one test per top-level function and class of a Python module. */
export function pythonTestSkeleton(root: string, relative: string, text: string, only: string | undefined): string {
  const names = [...text.matchAll(/^(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/gm)]
    .filter(([, , name]) => !name!.startsWith("_") && (only === undefined || name === only))
    .map(([, kind, name]) => ({ kind: kind!, name: name! }));
  if (names.length === 0)
    throw new ToolInputError(
      only === undefined
        ? `${relative} has no public function or class to test.`
        : `${relative} has no function or class named "${only}".`,
    );
  // In a src layout, src/ is a directory on the import path, not a package: the module is what lies under it.
  const importable =
    relative.startsWith("src/") && !pathExists(path.join(root, "src", "__init__.py"))
      ? relative.slice("src/".length)
      : relative;
  const module = importable
    .replace(/\.py$/, "")
    .replace(/\/__init__$/, "")
    .split("/")
    .join(".");
  const lines = [`from ${module} import ${names.map(({ name }) => name).join(", ")}`, "", ""];
  for (const { kind, name } of names) {
    lines.push(
      `def test_${kind === "class" ? name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase() : name}():`,
      `    # TODO: arrange, act and assert ${kind === "class" ? `${name}(...)` : `${name}(...)`}`,
      `    assert ${name} is not None`,
      "",
      "",
    );
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
