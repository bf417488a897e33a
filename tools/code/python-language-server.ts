import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { sandboxCommand } from "../identity/sandbox-user.js";
import { readFileSync, statSync } from "node:fs";
import { pathExists } from "../fs/exists.js";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { ToolInputError } from "../tool-result.js";
import type { CodeLocation, FileEdits } from "./ts-operations.js";
import { lineStarts } from "./ts-project.js";

const IMAGE_SERVER = "/opt/workcell/pyright/langserver.index.js";
const REQUEST_TIMEOUT_MS = 60_000;
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

interface LspPosition {
  line: number;
  character: number;
}
interface LspRange {
  start: LspPosition;
  end: LspPosition;
}
interface LspLocation {
  uri: string;
  range: LspRange;
}
interface TextEdit {
  range: LspRange;
  newText: string;
}

/** Where pyright's language server is: in the image, or this package's own on a development host. */
function serverScript(): string | null {
  if (process.env.WORKCELL_PYRIGHT) return process.env.WORKCELL_PYRIGHT;
  if (pathExists(IMAGE_SERVER)) return IMAGE_SERVER;
  try {
    return path.join(path.dirname(createRequire(import.meta.url).resolve("pyright/package.json")), "langserver.index.js");
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
  private child: ChildProcessWithoutNullStreams | undefined;
  private ready: Promise<void> | undefined;
  private nextId = 1;
  private buffer = Buffer.alloc(0);
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
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
    this.child = child;
    child.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
    child.stderr.resume();
    child.on("exit", () => {
      for (const { reject, timer } of this.pending.values()) {
        clearTimeout(timer);
        reject(new Error("the Python language server exited"));
      }
      this.pending.clear();
      this.ready = undefined;
      this.child = undefined;
      this.open.clear();
    });
    const rootUri = pathToFileURL(this.root).href;
    this.ready = this.request("initialize", {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: path.basename(this.root) }],
      capabilities: { textDocument: { rename: { prepareSupport: true }, hover: { contentFormat: ["plaintext", "markdown"] }, documentSymbol: { hierarchicalDocumentSymbolSupport: true } }, workspace: { configuration: true, workspaceFolders: true } },
      initializationOptions: {},
    }).then(() => this.notify("initialized", {}));
    return this.ready;
  }

  private send(message: Record<string, unknown>): void {
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }), "utf8");
    this.child?.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]));
  }

  private notify(method: string, params: unknown): void {
    this.send({ method, params });
  }

  private request<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the Python language server did not answer ${method} within ${REQUEST_TIMEOUT_MS / 1000} s`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.send({ id, method, params });
    });
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf("\r\n\r\n");
      if (headerEnd === -1) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString("ascii"))?.[1]);
      if (!Number.isFinite(length) || length > MAX_MESSAGE_BYTES) {
        this.child?.kill();
        return;
      }
      if (this.buffer.length < headerEnd + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString("utf8")) as { id?: number; method?: string; params?: { items?: unknown[] }; result?: unknown; error?: { message: string } };
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      if (message.method !== undefined && message.id !== undefined) {
        // Requests from the server: configuration gets defaults, the rest a plain acknowledgement.
        const result = message.method === "workspace/configuration" ? (message.params?.items ?? []).map(() => null) : null;
        this.send({ id: message.id, result });
      } else if (message.id !== undefined) {
        const waiting = this.pending.get(message.id);
        if (waiting === undefined) continue;
        this.pending.delete(message.id);
        clearTimeout(waiting.timer);
        if (message.error) waiting.reject(new Error(message.error.message));
        else waiting.resolve(message.result);
      }
    }
  }

  /** Opens (or refreshes) a file in the server with its current text. */
  private sync(file: string): string {
    const uri = pathToFileURL(file).href;
    const stat = statSync(file);
    const stamp = `${stat.mtimeMs}:${stat.size}`;
    const known = this.open.get(file);
    if (known?.stamp === stamp) return uri;
    const text = readFileSync(file, "utf8");
    if (known === undefined) this.notify("textDocument/didOpen", { textDocument: { uri, languageId: "python", version: 1, text } });
    else this.notify("textDocument/didChange", { textDocument: { uri, version: known.version + 1 }, contentChanges: [{ text }] });
    this.open.set(file, { version: (known?.version ?? 0) + 1, stamp });
    return uri;
  }

  private async at(file: string, line: number, column: number): Promise<{ textDocument: { uri: string }; position: LspPosition }> {
    await this.start();
    return { textDocument: { uri: this.sync(file) }, position: { line: line - 1, character: column - 1 } };
  }

  private locate(location: LspLocation): CodeLocation {
    const file = fileURLToPath(location.uri);
    const text = safeRead(file).split("\n")[location.range.start.line] ?? "";
    const relative = path.relative(this.root, file);
    return { path: relative.startsWith("..") ? file : relative, line: location.range.start.line + 1, column: location.range.start.character + 1, text: text.trim().slice(0, 240) };
  }

  async definition(file: string, line: number, column: number): Promise<CodeLocation[]> {
    const result = await this.request<LspLocation | LspLocation[] | { targetUri: string; targetSelectionRange: LspRange }[] | null>("textDocument/definition", await this.at(file, line, column));
    return asLocations(result).map((location) => this.locate(location));
  }

  async references(file: string, line: number, column: number): Promise<CodeLocation[]> {
    const params = await this.at(file, line, column);
    const declarations = new Set((await this.definition(file, line, column)).map((location) => `${location.path}:${location.line}:${location.column}`));
    const result = await this.request<LspLocation[] | null>("textDocument/references", { ...params, context: { includeDeclaration: true } });
    return (result ?? [])
      .map((location) => this.locate(location))
      .map((location) => ({ ...location, isDefinition: declarations.has(`${location.path}:${location.line}:${location.column}`) }))
      .sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.column - b.column);
  }

  async callers(file: string, line: number, column: number): Promise<CodeLocation[]> {
    const items = await this.request<{ name: string; uri: string; selectionRange: LspRange }[] | null>("textDocument/prepareCallHierarchy", await this.at(file, line, column));
    const out: CodeLocation[] = [];
    for (const item of items ?? []) {
      const calls = await this.request<{ from: { name: string; uri: string }; fromRanges: LspRange[] }[] | null>("callHierarchy/incomingCalls", { item });
      for (const call of calls ?? []) for (const range of call.fromRanges) out.push({ ...this.locate({ uri: call.from.uri, range }), name: call.from.name, kind: "caller" });
    }
    return out;
  }

  async documentSymbols(file: string): Promise<CodeLocation[]> {
    await this.start();
    type Symbol = { name: string; kind: number; selectionRange?: LspRange; location?: LspLocation; children?: Symbol[] };
    const result = await this.request<Symbol[] | null>("textDocument/documentSymbol", { textDocument: { uri: this.sync(file) } });
    const out: CodeLocation[] = [];
    const walk = (symbols: readonly Symbol[], container: string | undefined) => {
      for (const symbol of symbols) {
        if (symbol.kind === 13 && container !== undefined) continue; // variables inside functions
        const name = container ? `${container}.${symbol.name}` : symbol.name;
        const range = symbol.selectionRange ?? symbol.location?.range;
        if (range !== undefined) out.push({ ...this.locate({ uri: pathToFileURL(file).href, range }), name, kind: SYMBOL_KINDS[symbol.kind] ?? "symbol" });
        walk(symbol.children ?? [], name);
      }
    };
    walk(result ?? [], undefined);
    return out;
  }

  async workspaceSymbols(query: string): Promise<CodeLocation[]> {
    await this.start();
    const result = await this.request<{ name: string; kind: number; location: LspLocation; containerName?: string }[] | null>("workspace/symbol", { query });
    return (result ?? []).map((symbol) => ({ ...this.locate(symbol.location), name: symbol.containerName ? `${symbol.containerName}.${symbol.name}` : symbol.name, kind: SYMBOL_KINDS[symbol.kind] ?? "symbol" }));
  }

  /** Hover text (signature and docstring) at a position. */
  async hover(file: string, line: number, column: number): Promise<string> {
    const result = await this.request<{ contents: string | { value: string } | ({ value: string } | string)[] } | null>("textDocument/hover", await this.at(file, line, column));
    if (result === null) return "";
    const contents = Array.isArray(result.contents) ? result.contents : [result.contents];
    return contents.map((part) => (typeof part === "string" ? part : part.value)).join("\n");
  }

  /** The edits of a rename, as new file texts (nothing is written here). */
  async rename(file: string, line: number, column: number, newName: string): Promise<FileEdits> {
    const params = await this.at(file, line, column);
    const prepared = await this.request<unknown>("textDocument/prepareRename", params).catch(() => undefined);
    if (prepared === null) throw new ToolInputError(`There is nothing to rename at ${path.relative(this.root, file)}:${line}:${column}.`);
    type Edit = { changes?: Record<string, TextEdit[]>; documentChanges?: { textDocument: { uri: string }; edits: TextEdit[] }[] };
    const edit = await this.request<Edit | null>("textDocument/rename", { ...params, newName });
    const byUri = new Map<string, TextEdit[]>();
    for (const [uri, edits] of Object.entries(edit?.changes ?? {})) byUri.set(uri, edits);
    for (const change of edit?.documentChanges ?? []) if ("textDocument" in change) byUri.set(change.textDocument.uri, [...(byUri.get(change.textDocument.uri) ?? []), ...change.edits]);
    const result: FileEdits = new Map();
    for (const [uri, edits] of byUri) {
      const target = fileURLToPath(uri);
      const before = readFileSync(target, "utf8");
      result.set(target, { before, after: applyTextEdits(before, edits) });
    }
    return result;
  }

  stop(): void {
    this.child?.kill();
  }
}

const SYMBOL_KINDS: Record<number, string> = { 2: "module", 5: "class", 6: "method", 7: "property", 8: "field", 9: "constructor", 12: "function", 13: "variable", 14: "constant" };

function asLocations(result: unknown): LspLocation[] {
  const list = result === null || result === undefined ? [] : Array.isArray(result) ? result : [result];
  return list.map((item: LspLocation | { targetUri: string; targetSelectionRange: LspRange }) => ("targetUri" in item ? { uri: item.targetUri, range: item.targetSelectionRange } : item));
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** Applies LSP text edits (UTF-16 positions, as JavaScript strings count) to a text. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = lineStarts(text);
  const offset = (position: LspPosition) => Math.min((starts[position.line] ?? text.length) + position.character, text.length);
  const ordered = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  let out = text;
  for (const edit of ordered) out = out.slice(0, offset(edit.range.start)) + edit.newText + out.slice(offset(edit.range.end));
  return out;
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

/** The 1-based line and column of `name` in a Python file: its def/class there, else its first use outside strings and comments. */
export function findPythonSymbol(text: string, name: string, relative: string): { line: number; column: number } {
  const lines = text.split("\n");
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const declaration = new RegExp(`^(\\s*(?:async\\s+)?(?:def|class)\\s+)${escaped}\\b`);
  for (let i = 0; i < lines.length; i += 1) {
    const match = declaration.exec(lines[i]!);
    if (match) return { line: i + 1, column: match[1]!.length + 1 };
  }
  const word = new RegExp(`\\b${escaped}\\b`);
  for (let i = 0; i < lines.length; i += 1) {
    const code = lines[i]!.replace(/#.*$/, "").replace(/(["'])(?:\\.|(?!\1).)*\1/g, (literal) => " ".repeat(literal.length));
    const match = word.exec(code);
    if (match) return { line: i + 1, column: match.index + 1 };
  }
  throw new ToolInputError(`No symbol named "${name}" in ${relative}. Check the spelling, or give line and column.`);
}
