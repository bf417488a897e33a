import type { ExecSession } from "../docker/container-driver.js";
import type { PermissionsInput, Policy } from "../permissions/policy.js";
import type { AuditSource } from "../permissions/audit-entry.js";
import type { SkippedEntry } from "../permissions/suggest.js";
import type { InteractiveShell, ShellTerminal } from "./interactive-shell.js";
import type { DiffResult, ExecRequest, ExecResponse } from "./exec-request.js";
import type { ExportResult } from "./export-branch.js";
import type { NetPrompter } from "./worker-egress.js";
import type { CreateWorkerInput, RemoveResult, Worker } from "./worker.js";

/** Called when a worker's container goes away on purpose (stop, remove, a new task), to end its sessions. */
export type WorkerDownListener = (workerId: string) => void;

/** Finding workers: by id, by name, all of them, and the container of a running one. */
export interface WorkerLookup {
  /** Every worker, oldest first, refreshed from the engine unless another operation holds it. */
  list(): Promise<Worker[]>;
  /** One worker by id; not_found when there is none. */
  get(id: string): Promise<Worker>;
  /** One worker by id or by name; a name two workers share is refused, never guessed. */
  resolve(ref: string): Promise<Worker>;
  /** The id of a running worker's container, or a conflict error that says how to start it. */
  requireRunning(id: string): Promise<{ worker: Worker; containerId: string }>;
}

/** Bringing workers into being, up, down and out of existence. */
export interface WorkerLifecycle {
  create(input: CreateWorkerInput): Promise<Worker>;
  start(id: string): Promise<Worker>;
  stop(id: string): Promise<Worker>;
  /** Stops a worker found over a limit, recording the reason on the worker and in its events. */
  stopForLimit(id: string, reason: string): Promise<void>;
  remove(id: string, options: { keepWorkspace: boolean }): Promise<RemoveResult>;
  /** Matches stored workers with labelled containers after a restart. */
  reconcile(): Promise<void>;
  /** Registers a listener for workers going down; returns the unsubscribe function. */
  onWorkerDown(listener: WorkerDownListener): () => void;
  /** Ends every channel and egress proxy (on shutdown); containers keep running. */
  close(): Promise<void>;
}

/** What runs in a running worker: MCP sessions, commands, shells, the diff and the export. */
export interface WorkerSessions {
  /** Starts the in-container MCP server for one session, handing it the gate state. */
  openMcpSession(id: string): Promise<ExecSession>;
  exec(id: string, request: ExecRequest): Promise<ExecResponse>;
  /** Opens an interactive shell, checked and recorded line by line. */
  openShell(id: string, terminal: ShellTerminal): Promise<InteractiveShell>;
  diff(id: string): Promise<DiffResult>;
  export(id: string, branch: string | undefined): Promise<ExportResult>;
}

/** A worker's policy: reading and editing it, and what audit mode recorded against it. */
export interface WorkerPermissions {
  permissions(id: string): Promise<Policy>;
  /** Replaces the fields given; says whether the change needs the next start to apply. */
  updatePermissions(id: string, input: PermissionsInput): Promise<{ permissions: Policy; appliesOnNextStart: boolean }>;
  /** Adds one grant (a permission prompt approved for the worker's life). */
  grantPermission(id: string, permission: { kind: string; target: string }): Promise<void>;
  /** Records what audit mode allowed but enforce would refuse. */
  recordAudit(id: string, entries: readonly unknown[], source?: AuditSource): Promise<void>;
  /** The minimal enforce-mode policy that would have let the audited run pass. */
  suggestedPermissions(id: string): Promise<{ permissions: Policy; skipped: SkippedEntry[] }>;
  /** Lets permission prompts for network destinations reach the operator's approval queue. */
  setNetPrompter(prompter: NetPrompter): void;
}

/** A worker's task: the finish gate its tools report, a fresh task, the model its agent gets. */
export interface WorkerTasks {
  /** Records the finish-gate state a worker's tools reported (validated; an ended task stays ended). */
  recordGate(id: string, reported: unknown): Promise<void>;
  /** Starts a new task on a worker whose task ended. */
  startNewTask(id: string): Promise<Worker>;
  /** Sets the model the worker's agent gets in WORKCELL_MODEL. */
  setModel(id: string, model: string): Promise<Worker>;
}

/** When each worker last did something, for idle timeouts. */
export interface WorkerActivity {
  /** Notes a tool call or exec. */
  touch(id: string): void;
  /** When the worker last had a tool call or exec (now if none was noted). */
  lastActivity(id: string): number;
}

/** Every role over one set of workers; consumers take the roles they use. */
export interface Workers {
  readonly lookup: WorkerLookup;
  readonly lifecycle: WorkerLifecycle;
  readonly sessions: WorkerSessions;
  readonly permissions: WorkerPermissions;
  readonly tasks: WorkerTasks;
  readonly activity: WorkerActivity;
  /** Values that must never appear in events or logs (env values given to workers). */
  secrets(): string[];
}
