import { readFileSync } from "node:fs";
import path from "node:path";
import type * as TS from "typescript";
import { ToolInputError } from "../tool-result.js";
import { typescript, type TypeScript } from "./ts-compiler.js";
import { DECLARATION_FILE, isDeclaration, rankKind } from "./ts-declarations.js";
import { listSources, versionOf } from "./ts-sources.js";

export { typescript } from "./ts-compiler.js";
export { isTsLike } from "./ts-sources.js";

/** A 1-based position in a file, and the 0-based offset the service speaks in. */
export interface Position {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly offset: number;
}

/**
 * One language service per workspace, kept warm between calls. Script versions come from
 * each file's mtime and size, so edits made by any tool (or the shell) are picked up
 * incrementally: unchanged files keep their parsed trees.
 */
export class TsProject {
  readonly service: TS.LanguageService;
  private options: TS.CompilerOptions = {};
  private fileNames: string[] = [];
  private hasConfig = false;
  private readonly snapshots = new Map<string, { version: string; snapshot: TS.IScriptSnapshot }>();
  /** Texts that stand in for files while a multi-step change is computed (nothing is written). */
  private readonly overlay = new Map<string, { text: string; version: string }>();
  private overlayCount = 0;

  constructor(
    readonly ts: TypeScript,
    readonly root: string,
  ) {
    const host: TS.LanguageServiceHost = {
      getCompilationSettings: () => this.options,
      getScriptFileNames: () => this.fileNames,
      getScriptVersion: (file) => this.overlay.get(file)?.version ?? versionOf(file),
      getScriptSnapshot: (file) => this.snapshot(file),
      getCurrentDirectory: () => root,
      getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
      fileExists: (file) => this.overlay.has(file) || ts.sys.fileExists(file),
      readFile: (file, encoding) => this.overlay.get(file)?.text ?? ts.sys.readFile(file, encoding),
      readDirectory: (...args) => ts.sys.readDirectory(...args),
      directoryExists: (directory) => ts.sys.directoryExists(directory),
      getDirectories: (directory) => ts.sys.getDirectories(directory),
      useCaseSensitiveFileNames: () => true,
    };
    this.service = ts.createLanguageService(host, ts.createDocumentRegistry());
  }

  /** Re-reads tsconfig.json and the file list (cheap: a directory walk); call before each request. */
  refresh(): void {
    const found = this.ts.findConfigFile(this.root, (file) => this.ts.sys.fileExists(file));
    // A tsconfig above the workspace is not the project's.
    const config = found !== undefined && !path.relative(this.root, found).startsWith("..") ? found : undefined;
    this.hasConfig = config !== undefined;
    if (config !== undefined) {
      const parsed = this.ts.getParsedCommandLineOfConfigFile(
        config,
        {},
        { ...this.ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
      );
      if (parsed !== undefined) {
        this.options = { ...parsed.options, noEmit: true };
        this.fileNames = parsed.fileNames;
      }
    } else {
      this.options = {
        allowJs: true,
        checkJs: false,
        jsx: this.ts.JsxEmit.Preserve,
        target: this.ts.ScriptTarget.ES2022,
        module: this.ts.ModuleKind.NodeNext,
        moduleResolution: this.ts.ModuleResolutionKind.NodeNext,
        noEmit: true,
        esModuleInterop: true,
      };
      this.fileNames = listSources(this.root);
    }
  }

  program(): TS.Program {
    const program = this.service.getProgram();
    if (program === undefined) throw new Error("The TypeScript language service has no program.");
    return program;
  }

  sourceFile(file: string): TS.SourceFile {
    const source = this.program().getSourceFile(file);
    if (source === undefined)
      throw new ToolInputError(
        `${this.relative(file)} is not part of the TypeScript project${this.hasConfig ? " (check tsconfig.json's include)" : ""}.`,
      );
    return source;
  }

  /** A position from a 1-based line and column. */
  at(file: string, line: number, column: number): Position {
    const source = this.sourceFile(file);
    const lines = source.getLineStarts();
    if (line < 1 || line > lines.length)
      throw new ToolInputError(`line ${line} is outside ${this.relative(file)}, which has ${lines.length} lines.`);
    const lineEnd = line < lines.length ? lines[line]! - 1 : source.text.length;
    const offset = Math.min(lines[line - 1]! + column - 1, lineEnd);
    return { file, line, column, offset };
  }

  /** The position of `symbolName` in `file`: its declaration there if it has one, else its first use. */
  find(file: string, symbolName: string): Position {
    const source = this.sourceFile(file);
    let declared: TS.Node | undefined;
    let used: TS.Node | undefined;
    const visit = (node: TS.Node): void => {
      if (declared !== undefined) return;
      if ((this.ts.isIdentifier(node) || this.ts.isPrivateIdentifier(node)) && node.text === symbolName) {
        const parent = node.parent as TS.Node & { name?: TS.Node };
        if (parent.name === node && isDeclaration(this.ts, parent)) declared = node;
        else used ??= node;
      }
      this.ts.forEachChild(node, visit);
    };
    visit(source);
    const node = declared ?? used;
    if (node === undefined)
      throw new ToolInputError(
        `No symbol named "${symbolName}" in ${this.relative(file)}. Check the spelling, or give line and column.`,
      );
    return this.position(file, node.getStart(source));
  }

  /** The declaration of `symbolName` anywhere in the project (exact name, declarations first). */
  findInProject(symbolName: string): Position {
    const items = this.service
      .getNavigateToItems(symbolName, 50, undefined, true)
      .filter(
        (item) =>
          item.name === symbolName &&
          !item.fileName.includes("/node_modules/") &&
          !DECLARATION_FILE.test(item.fileName),
      );
    const item = items.sort((a, b) => rankKind(a.kind) - rankKind(b.kind))[0];
    if (item === undefined)
      throw new ToolInputError(
        `No declaration named "${symbolName}" in the project. Give filePath (and line/column) to look at a use instead.`,
      );
    const source = this.sourceFile(item.fileName);
    const text = source.text;
    const offset = text.indexOf(symbolName, item.textSpan.start);
    return this.position(
      item.fileName,
      offset >= 0 && offset < item.textSpan.start + item.textSpan.length ? offset : item.textSpan.start,
    );
  }

  position(file: string, offset: number): Position {
    const source = this.sourceFile(file);
    const { line, character } = source.getLineAndCharacterOfPosition(offset);
    return { file, line: line + 1, column: character + 1, offset };
  }

  /** The 1-based line and column of an offset, with the line's text. */
  location(file: string, offset: number): { path: string; line: number; column: number; text: string } {
    const source = this.program().getSourceFile(file);
    const text = source?.text ?? readFileSync(file, "utf8");
    const starts = source?.getLineStarts() ?? lineStarts(text);
    let line = 0;
    while (line + 1 < starts.length && starts[line + 1]! <= offset) line += 1;
    const end = line + 1 < starts.length ? starts[line + 1]! : text.length;
    return {
      path: this.relative(file),
      line: line + 1,
      column: offset - starts[line]! + 1,
      text: text
        .slice(starts[line], end)
        .replace(/\r?\n$/, "")
        .trim()
        .slice(0, 240),
    };
  }

  relative(file: string): string {
    const relative = path.relative(this.root, file);
    return relative.startsWith("..") ? file : relative;
  }

  /** Runs `compute` with `texts` standing in for their files; the service then sees them as edited. */
  overlaid<T>(texts: ReadonlyMap<string, string>, compute: () => T): T {
    for (const [file, text] of texts) this.overlay.set(file, { text, version: `overlay:${(this.overlayCount += 1)}` });
    const added = [...texts.keys()].filter((file) => !this.fileNames.includes(file));
    this.fileNames.push(...added);
    try {
      return compute();
    } finally {
      for (const file of texts.keys()) this.overlay.delete(file);
      this.fileNames = this.fileNames.filter((file) => !added.includes(file));
    }
  }

  /** A file's text as the service sees it now (overlay first). */
  text(file: string): string | undefined {
    return this.overlay.get(file)?.text ?? this.ts.sys.readFile(file);
  }

  private snapshot(file: string): TS.IScriptSnapshot | undefined {
    const overlaid = this.overlay.get(file);
    if (overlaid !== undefined) return this.ts.ScriptSnapshot.fromString(overlaid.text);
    const version = versionOf(file);
    if (version === "") return undefined;
    const cached = this.snapshots.get(file);
    if (cached?.version === version) return cached.snapshot;
    const snapshot = this.ts.ScriptSnapshot.fromString(readFileSync(file, "utf8"));
    this.snapshots.set(file, { version, snapshot });
    return snapshot;
  }
}

const projects = new Map<string, TsProject>();

/** The warm project for a workspace root, or null when no TypeScript is available. */
export function projectFor(root: string): TsProject | null {
  const ts = typescript();
  if (ts === null) return null;
  let project = projects.get(root);
  if (project === undefined) {
    project = new TsProject(ts, root);
    projects.set(root, project);
  }
  project.refresh();
  return project;
}

/** The offset at which each line of `text` starts. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i += 1) if (text[i] === "\n") starts.push(i + 1);
  return starts;
}
