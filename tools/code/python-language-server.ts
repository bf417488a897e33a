import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { pathExists } from "../fs/exists.js";
import { sandboxCommand } from "../identity/sandbox-user.js";
import { ToolInputError } from "../tool-result.js";
import { LspConnection } from "./lsp-connection.js";
import {
  applyTextEdits,
  asLocations,
  LSP_SYMBOL_KINDS,
  type LspLocation,
  type LspPosition,
  type LspRange,
  type TextEdit,
} from "./lsp-protocol.js";
import type { CodeLocation, FileEdits } from "./ts-operations.js";

export { applyTextEdits } from "./lsp-protocol.js";
export { findPythonSymbol } from "./python-symbol.js";

const IMAGE_SERVER = "/opt/workcell/pyright/langserver.index.js";

/** Where pyright's language server is: in the image, or this package's own on a development host. */
function serverScript(): string | null {
  if (process.env.WORKCELL_PYRIGHT) return process.env.WORKCELL_PYRIGHT;
  if (pathExists(IMAGE_SERVER)) return IMAGE_SERVER;
  try {
    return path.join(
      path.dirname(createRequire(import.meta.url).resolve("pyright/package.json")),
      "langserver.index.js",
    );
  } catch {
    return null;
  }
}

/**
 * A client for pyright's language server over stdio (LSP JSON-RPC), started on first use and
 * kept for the workspace's life. Files are opened with their current text before each
 * request, so edits made by any tool are seen.
 */
export class PythonLanguageServer {
  private connection: LspConnection | undefined;
  private ready: Promise<void> | undefined;
  private readonly open = new Map<string, { version: number; stamp: string }>();

  constructor(readonly root: string) {}

  static available(): boolean {
    return serverScript() !== null;
  }

  private start(): Promise<void> {
    if (this.ready !== undefined) return this.ready;
    const script = serverScript();
    if (script === null) return Promise.reject(new Error("pyright is not installed"));
    const server = sandboxCommand(process.execPath, [script, "--stdio"]);
    const child = spawn(server.file, server.args, { cwd: this.root, stdio: ["pipe", "pipe", "pipe"] });
    this.connection = new LspConnection(child, () => {
      this.ready = undefined;
      this.open.clear();
    });
    const rootUri = pathToFileURL(this.root).href;
    this.ready = this.request("initialize", {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: path.basename(this.root) }],
      capabilities: {
        textDocument: {
          rename: { prepareSupport: true },
          hover: { contentFormat: ["plaintext", "markdown"] },
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
        },
        workspace: { configuration: true, workspaceFolders: true },
      },
      initializationOptions: {},
    }).then(() => this.notify("initialized", {}));
    return this.ready;
  }

  private notify(method: string, params: unknown): void {
    this.connection?.notify(method, params);
  }

  private request<T>(method: string, params: unknown): Promise<T> {
    if (this.connection === undefined) return Promise.reject(new Error("the Python language server is not running"));
    return this.connection.request<T>(method, params);
  }

  /** Opens (or refreshes) a file in the server with its current text. */
  private sync(file: string): string {
    const uri = pathToFileURL(file).href;
    const stat = statSync(file);
    const stamp = `${stat.mtimeMs}:${stat.size}`;
    const known = this.open.get(file);
    if (known?.stamp === stamp) return uri;
    const text = readFileSync(file, "utf8");
    if (known === undefined)
      this.notify("textDocument/didOpen", { textDocument: { uri, languageId: "python", version: 1, text } });
    else
      this.notify("textDocument/didChange", {
        textDocument: { uri, version: known.version + 1 },
        contentChanges: [{ text }],
      });
    this.open.set(file, { version: (known?.version ?? 0) + 1, stamp });
    return uri;
  }

  private async at(
    file: string,
    line: number,
    column: number,
  ): Promise<{ textDocument: { uri: string }; position: LspPosition }> {
    await this.start();
    return { textDocument: { uri: this.sync(file) }, position: { line: line - 1, character: column - 1 } };
  }

  private locate(location: LspLocation): CodeLocation {
    const file = fileURLToPath(location.uri);
    const text = safeRead(file).split("\n")[location.range.start.line] ?? "";
    const relative = path.relative(this.root, file);
    return {
      path: relative.startsWith("..") ? file : relative,
      line: location.range.start.line + 1,
      column: location.range.start.character + 1,
      text: text.trim().slice(0, 240),
    };
  }

  async definition(file: string, line: number, column: number): Promise<CodeLocation[]> {
    const result = await this.request<
      LspLocation | LspLocation[] | { targetUri: string; targetSelectionRange: LspRange }[] | null
    >("textDocument/definition", await this.at(file, line, column));
    return asLocations(result).map((location) => this.locate(location));
  }

  async references(file: string, line: number, column: number): Promise<CodeLocation[]> {
    const params = await this.at(file, line, column);
    const declarations = new Set(
      (await this.definition(file, line, column)).map(
        (location) => `${location.path}:${location.line}:${location.column}`,
      ),
    );
    const result = await this.request<LspLocation[] | null>("textDocument/references", {
      ...params,
      context: { includeDeclaration: true },
    });
    return (result ?? [])
      .map((location) => this.locate(location))
      .map((location) => ({
        ...location,
        isDefinition: declarations.has(`${location.path}:${location.line}:${location.column}`),
      }))
      .sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.column - b.column);
  }

  async callers(file: string, line: number, column: number): Promise<CodeLocation[]> {
    const items = await this.request<{ name: string; uri: string; selectionRange: LspRange }[] | null>(
      "textDocument/prepareCallHierarchy",
      await this.at(file, line, column),
    );
    const out: CodeLocation[] = [];
    for (const item of items ?? []) {
      const calls = await this.request<{ from: { name: string; uri: string }; fromRanges: LspRange[] }[] | null>(
        "callHierarchy/incomingCalls",
        { item },
      );
      for (const call of calls ?? [])
        for (const range of call.fromRanges)
          out.push({ ...this.locate({ uri: call.from.uri, range }), name: call.from.name, kind: "caller" });
    }
    return out;
  }

  async documentSymbols(file: string): Promise<CodeLocation[]> {
    await this.start();
    type Symbol = {
      name: string;
      kind: number;
      selectionRange?: LspRange;
      location?: LspLocation;
      children?: Symbol[];
    };
    const result = await this.request<Symbol[] | null>("textDocument/documentSymbol", {
      textDocument: { uri: this.sync(file) },
    });
    const out: CodeLocation[] = [];
    const walk = (symbols: readonly Symbol[], container: string | undefined) => {
      for (const symbol of symbols) {
        if (symbol.kind === 13 && container !== undefined) continue; // variables inside functions
        const name = container ? `${container}.${symbol.name}` : symbol.name;
        const range = symbol.selectionRange ?? symbol.location?.range;
        if (range !== undefined)
          out.push({
            ...this.locate({ uri: pathToFileURL(file).href, range }),
            name,
            kind: LSP_SYMBOL_KINDS[symbol.kind] ?? "symbol",
          });
        walk(symbol.children ?? [], name);
      }
    };
    walk(result ?? [], undefined);
    return out;
  }

  async workspaceSymbols(query: string): Promise<CodeLocation[]> {
    await this.start();
    const result = await this.request<
      { name: string; kind: number; location: LspLocation; containerName?: string }[] | null
    >("workspace/symbol", { query });
    return (result ?? []).map((symbol) => ({
      ...this.locate(symbol.location),
      name: symbol.containerName ? `${symbol.containerName}.${symbol.name}` : symbol.name,
      kind: LSP_SYMBOL_KINDS[symbol.kind] ?? "symbol",
    }));
  }

  /** Hover text (signature and docstring) at a position. */
  async hover(file: string, line: number, column: number): Promise<string> {
    const result = await this.request<{ contents: string | { value: string } | ({ value: string } | string)[] } | null>(
      "textDocument/hover",
      await this.at(file, line, column),
    );
    if (result === null) return "";
    const contents = Array.isArray(result.contents) ? result.contents : [result.contents];
    return contents.map((part) => (typeof part === "string" ? part : part.value)).join("\n");
  }

  /** The edits of a rename, as new file texts (nothing is written here). */
  async rename(file: string, line: number, column: number, newName: string): Promise<FileEdits> {
    const params = await this.at(file, line, column);
    const prepared = await this.request<unknown>("textDocument/prepareRename", params).catch(() => undefined);
    if (prepared === null)
      throw new ToolInputError(`There is nothing to rename at ${path.relative(this.root, file)}:${line}:${column}.`);
    type Edit = {
      changes?: Record<string, TextEdit[]>;
      documentChanges?: { textDocument: { uri: string }; edits: TextEdit[] }[];
    };
    const edit = await this.request<Edit | null>("textDocument/rename", { ...params, newName });
    const byUri = new Map<string, TextEdit[]>();
    for (const [uri, edits] of Object.entries(edit?.changes ?? {})) byUri.set(uri, edits);
    for (const change of edit?.documentChanges ?? [])
      if ("textDocument" in change)
        byUri.set(change.textDocument.uri, [...(byUri.get(change.textDocument.uri) ?? []), ...change.edits]);
    const result: FileEdits = new Map();
    for (const [uri, edits] of byUri) {
      const target = fileURLToPath(uri);
      const before = readFileSync(target, "utf8");
      result.set(target, { before, after: applyTextEdits(before, edits) });
    }
    return result;
  }

  stop(): void {
    this.connection?.kill();
  }
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

const servers = new Map<string, PythonLanguageServer>();

/** The workspace's Python language server (started on first request), or null without pyright. */
export function pythonServerFor(root: string): PythonLanguageServer | null {
  if (!PythonLanguageServer.available()) return null;
  let server = servers.get(root);
  if (server === undefined) {
    server = new PythonLanguageServer(root);
    servers.set(root, server);
  }
  return server;
}
