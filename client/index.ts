/**
 * The typed client for the workcell control plane:
 *
 *   import { WorkcellClient } from "workcell/client";
 *   const workcell = new WorkcellClient({ url: "http://127.0.0.1:7070", token });
 *   const { mcpUrl } = await workcell.spawn({ repo: "/path/to/repo" });
 *
 * It only speaks HTTP (fetch), so it runs in Node ≥ 20, Deno, Bun and browsers. Its types
 * come from the zod schemas the control plane validates with; the imports below are
 * type-only and vanish from the built file.
 */
import type { z } from "zod";
import type { SHELL_PROTOCOL } from "../contract/shell-frames.js";
import type { ApprovalSchema, DecisionInputSchema } from "../runtime/approvals/approval.js";
import type { ErrorBody, ErrorCode } from "../runtime/errors/app-error.js";
import type { WorkcellEventSchema } from "../runtime/events/event-log.js";
import type { PermissionsInputSchema, PolicySchema } from "../runtime/permissions/policy.js";
import type { TaskSchema } from "../runtime/pipeline/task.js";
import type { DiffResultSchema, ExecRequestSchema, ExecResultSchema } from "../runtime/workers/exec-request.js";
import type { ExportResultSchema } from "../runtime/workers/export-branch.js";
import type { CreateWorkerInputSchema, PublicWorkerSchema, RemoveResultSchema } from "../runtime/workers/worker.js";
import type { PoolInputSchema, PoolStatusSchema } from "../runtime/workers/worker-pools.js";

export type SpawnInput = z.input<typeof CreateWorkerInputSchema>;
export type WorkerInfo = z.output<typeof PublicWorkerSchema>;
export type ExecInput = z.input<typeof ExecRequestSchema>;
export type ExecResult = Omit<z.output<typeof ExecResultSchema>, "audit">;
export type DiffResult = z.output<typeof DiffResultSchema>;
export type ExportResult = z.output<typeof ExportResultSchema>;
export type Policy = z.output<typeof PolicySchema>;
export type PermissionsInput = z.input<typeof PermissionsInputSchema>;
export type Approval = z.output<typeof ApprovalSchema>;
export type ApprovalStatus = Approval["status"];
export type Decision = z.input<typeof DecisionInputSchema>;
export type WorkcellEvent = z.output<typeof WorkcellEventSchema>;
export type Task = z.output<typeof TaskSchema>;
export type RemoveResult = z.output<typeof RemoveResultSchema>;
export type PoolStatus = z.output<typeof PoolStatusSchema>;
export type PoolInput = z.input<typeof PoolInputSchema>;
export type { ErrorCode };

export interface WorkcellClientOptions {
  /** The control plane's address; default `resolveControlPlaneUrl()` (WORKCELL_URL, else WORKCELL_HOST and WORKCELL_PORT). */
  readonly url?: string;
  /** The bearer token; default `WORKCELL_TOKEN`. */
  readonly token?: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  readonly fetch?: typeof fetch;
}

/** The terminal an interactive shell opens for. */
export interface ShellTerminal {
  readonly columns: number;
  readonly rows: number;
  /** The terminal type, e.g. xterm-256color (the control plane's default). */
  readonly term?: string | undefined;
}

/** How to open an interactive shell: a GET to `url` with `headers`, upgraded (see `WorkcellClient.shellRequest`). */
export interface ShellRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
}

export interface EventFilter {
  /** Only events with a larger sequence number. */
  readonly after?: number;
  readonly type?: string;
  readonly workerId?: string;
}

/** A non-2xx answer: the control plane's error code and message (which says how to fix it). */
export class WorkcellError extends Error {
  override readonly name = "WorkcellError";
  constructor(
    readonly status: number,
    readonly code: ErrorCode | "network",
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

// The value of contract/shell-frames.ts's SHELL_PROTOCOL: the client imports types only, and the type keeps the two equal.
const SHELL_UPGRADE: typeof SHELL_PROTOCOL = "workcell-shell";

const env = (name: string): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];

/**
 * The control plane's address as every workcell client finds it: `WORKCELL_URL`, else
 * `http://WORKCELL_HOST:WORKCELL_PORT` (default 127.0.0.1:7070), the variables the control
 * plane itself binds by, so a client never sends its token to a port the plane is not on.
 */
export function resolveControlPlaneUrl(
  vars: Readonly<Record<string, string | undefined>> = {
    WORKCELL_URL: env("WORKCELL_URL"),
    WORKCELL_HOST: env("WORKCELL_HOST"),
    WORKCELL_PORT: env("WORKCELL_PORT"),
  },
): string {
  const explicit = vars.WORKCELL_URL?.trim();
  if (explicit) return explicit.replace(/\/+$/, "");
  const host = vars.WORKCELL_HOST?.trim() || "127.0.0.1";
  const port = vars.WORKCELL_PORT?.trim() || "7070";
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

export class WorkcellClient {
  readonly url: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;

  constructor(options: WorkcellClientOptions = {}) {
    this.url = (options.url ?? resolveControlPlaneUrl()).replace(/\/+$/, "");
    const token = options.token ?? env("WORKCELL_TOKEN");
    if (token === undefined || token === "")
      throw new TypeError(
        "WorkcellClient needs a token: pass { token } or set WORKCELL_TOKEN (the control plane prints it at start and keeps it in its data dir).",
      );
    this.#token = token;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The headers an MCP client needs to reach a worker's `mcpUrl`. */
  get headers(): Record<string, string> {
    return { Authorization: `Bearer ${this.#token}` };
  }

  health(): Promise<{ ok: boolean; docker: { available: boolean; version?: string; error?: string } }> {
    return this.#call("GET", "/health", undefined, { okStatuses: [503] });
  }

  /** Spawns a worker; resolves once its container runs. Connect an MCP client to `mcpUrl` with `headers`. */
  spawn(input: SpawnInput): Promise<WorkerInfo> {
    return this.#call("POST", "/v1/workers", input);
  }

  async list(): Promise<WorkerInfo[]> {
    return (await this.#call<{ workers: WorkerInfo[] }>("GET", "/v1/workers")).workers;
  }

  get(id: string): Promise<WorkerInfo> {
    return this.#call("GET", `/v1/workers/${encodeURIComponent(id)}`);
  }

  stop(id: string): Promise<WorkerInfo> {
    return this.#call("POST", `/v1/workers/${encodeURIComponent(id)}/stop`);
  }

  start(id: string): Promise<WorkerInfo> {
    return this.#call("POST", `/v1/workers/${encodeURIComponent(id)}/start`);
  }

  /** Starts a new task on a worker whose last task ended: its finish gate starts fresh and its MCP sessions end (409 while a task is open). */
  startTask(id: string): Promise<WorkerInfo> {
    return this.#call("POST", `/v1/workers/${encodeURIComponent(id)}/task`);
  }

  remove(id: string, options: { keepWorkspace?: boolean } = {}): Promise<RemoveResult> {
    return this.#call(
      "DELETE",
      `/v1/workers/${encodeURIComponent(id)}${options.keepWorkspace ? "?keepWorkspace=true" : ""}`,
    );
  }

  /** Runs a command in the worker's container: a string goes through `bash -c`, an array runs as argv. */
  exec(id: string, command: ExecInput["command"] | ExecInput): Promise<ExecResult> {
    const request = typeof command === "string" || Array.isArray(command) ? { command } : command;
    return this.#call("POST", `/v1/workers/${encodeURIComponent(id)}/exec`, request);
  }

  diff(id: string): Promise<DiffResult> {
    return this.#call("GET", `/v1/workers/${encodeURIComponent(id)}/diff`);
  }

  export(id: string, options: { branch?: string } = {}): Promise<ExportResult> {
    return this.#call("POST", `/v1/workers/${encodeURIComponent(id)}/export`, options);
  }

  async permissions(id: string): Promise<Policy> {
    return (await this.#call<{ permissions: Policy }>("GET", `/v1/workers/${encodeURIComponent(id)}/permissions`))
      .permissions;
  }

  updatePermissions(
    id: string,
    input: PermissionsInput,
  ): Promise<{ permissions: Policy; appliesOnNextStart: boolean; message: string }> {
    return this.#call("PATCH", `/v1/workers/${encodeURIComponent(id)}/permissions`, input);
  }

  async approvals(filter: { status?: ApprovalStatus; workerId?: string } = {}): Promise<Approval[]> {
    return (await this.#call<{ approvals: Approval[] }>("GET", `/v1/approvals${query(filter)}`)).approvals;
  }

  approval(id: string): Promise<Approval> {
    return this.#call("GET", `/v1/approvals/${encodeURIComponent(id)}`);
  }

  /** Approves, rejects or edits a pending approval; the agent's waiting call then proceeds. */
  decide(id: string, decision: Decision): Promise<Approval> {
    return this.#call("POST", `/v1/approvals/${encodeURIComponent(id)}`, decision);
  }

  /** The warm pools and how many slots each has ready. */
  async pools(): Promise<PoolStatus[]> {
    return (await this.#call<{ pools: PoolStatus[] }>("GET", "/v1/pools")).pools;
  }

  /** Keeps `size` clones of `repo` ready until the control plane stops (0 ends the pool). */
  setRepoPool(input: PoolInput): Promise<PoolStatus> {
    return this.#call("POST", "/v1/pools", input);
  }

  async tasks(): Promise<Task[]> {
    return (await this.#call<{ tasks: Task[] }>("GET", "/v1/tasks")).tasks;
  }

  /** One pipeline task with its transitions. */
  task(id: string): Promise<Task> {
    return this.#call("GET", `/v1/tasks/${encodeURIComponent(id)}`);
  }

  /**
   * Where and how to open an interactive shell in a running worker. fetch cannot upgrade a
   * connection, so this only builds the request: send a GET to `url` with `headers` (in Node,
   * `http.request` and its "upgrade" event); the upgraded connection then carries the frames
   * of contract/shell-frames.ts, and a refusal comes back as an ordinary JSON error.
   */
  shellRequest(id: string, terminal: ShellTerminal): ShellRequest {
    const url = new URL(`${this.url}/v1/workers/${encodeURIComponent(id)}/shell`);
    url.searchParams.set("columns", String(terminal.columns));
    url.searchParams.set("rows", String(terminal.rows));
    if (terminal.term !== undefined && terminal.term !== "") url.searchParams.set("term", terminal.term);
    return { url: url.href, headers: { ...this.headers, connection: "Upgrade", upgrade: SHELL_UPGRADE } };
  }

  /** One page of a worker's events; pass `next` back as `after` for the following page (null: no more). */
  events(
    id: string,
    options: { after?: number; limit?: number; type?: string } = {},
  ): Promise<{ events: WorkcellEvent[]; next: number | null }> {
    return this.#call("GET", `/v1/workers/${encodeURIComponent(id)}/events${query(options)}`);
  }

  /**
   * The live event stream (past events after `after` first). It resumes after a dropped
   * connection from the last event seen, and ends when `signal` aborts.
   */
  async *watch(filter: EventFilter = {}, signal?: AbortSignal): AsyncGenerator<WorkcellEvent> {
    let after = filter.after ?? 0;
    while (signal?.aborted !== true) {
      let response: Response;
      try {
        response = await this.#fetch(`${this.url}/v1/events${query({ ...filter, after })}`, {
          headers: { ...this.headers, accept: "text/event-stream" },
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        if (signal?.aborted) return;
        throw networkError(this.url, error);
      }
      if (!response.ok || response.body === null) throw await toError(response);
      try {
        for await (const event of parseEventStream(response.body)) {
          after = event.seq;
          yield event;
        }
      } catch (error) {
        if (signal?.aborted) return;
        if (!(error instanceof TypeError)) throw error;
        // A dropped connection: reconnect and resume after the last event.
      }
    }
  }

  async #call<T>(method: string, route: string, body?: unknown, options: { okStatuses?: number[] } = {}): Promise<T> {
    let response: Response;
    try {
      response = await this.#fetch(`${this.url}${route}`, {
        method,
        headers: { ...this.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw networkError(this.url, error);
    }
    if (!response.ok && !options.okStatuses?.includes(response.status)) throw await toError(response);
    return (await response.json()) as T;
  }
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const entries = Object.entries(params).filter(
    (entry): entry is [string, string | number | boolean] => entry[1] !== undefined,
  );
  return entries.length === 0
    ? ""
    : `?${new URLSearchParams(entries.map(([key, value]) => [key, String(value)])).toString()}`;
}

function networkError(url: string, error: unknown): WorkcellError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? String(error);
  return new WorkcellError(
    0,
    "network",
    `Cannot reach the control plane at ${url} (${reason}). Is it running ('npm start')?`,
    { reason },
  );
}

async function toError(response: Response): Promise<WorkcellError> {
  const text = await response.text();
  try {
    const { error } = JSON.parse(text) as ErrorBody;
    return new WorkcellError(response.status, error.code, error.message, error.details);
  } catch {
    return new WorkcellError(response.status, "internal", `HTTP ${response.status}: ${text.slice(0, 200)}`);
  }
}

/** Parses a text/event-stream body into the JSON of each message's data. */
async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<WorkcellEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n");
      if (data !== "") yield JSON.parse(data) as WorkcellEvent;
    }
  }
}
