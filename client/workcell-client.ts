import { readEnv, resolveControlPlaneUrl } from "./control-plane-url.js";
import { watchEvents, type EventFilter } from "./event-stream.js";
import { query, requestJson, type Endpoint } from "./request.js";
import { buildShellRequest, type ShellRequest, type ShellTerminal } from "./shell-request.js";
import type {
  Approval,
  ApprovalStatus,
  Decision,
  DiffResult,
  ExecInput,
  ExecResult,
  ExportResult,
  PermissionsInput,
  Policy,
  PoolInput,
  PoolStatus,
  RemoveResult,
  SpawnInput,
  Task,
  WorkcellEvent,
  WorkerInfo,
} from "./types.js";

export interface WorkcellClientOptions {
  /** The control plane's address; default `resolveControlPlaneUrl()` (WORKCELL_URL, else WORKCELL_HOST and WORKCELL_PORT). */
  readonly url?: string;
  /** The bearer token; default `WORKCELL_TOKEN`. */
  readonly token?: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  readonly fetch?: typeof fetch;
}

/** The control plane over HTTP: one method per route, each answering the route's typed reply. */
export class WorkcellClient {
  readonly url: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;

  constructor(options: WorkcellClientOptions = {}) {
    this.url = (options.url ?? resolveControlPlaneUrl()).replace(/\/+$/, "");
    const token = options.token ?? readEnv("WORKCELL_TOKEN");
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
    return buildShellRequest(this.url, this.headers, id, terminal);
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
  watch(filter: EventFilter = {}, signal?: AbortSignal): AsyncGenerator<WorkcellEvent> {
    return watchEvents(this.#endpoint(), filter, signal);
  }

  #call<T>(method: string, route: string, body?: unknown, options: { okStatuses?: number[] } = {}): Promise<T> {
    return requestJson(this.#endpoint(), method, route, body, options);
  }

  #endpoint(): Endpoint {
    return { url: this.url, headers: this.headers, fetch: this.#fetch };
  }
}
