import path from "node:path";
import { isoNow, type Clock } from "../clock/clock.js";
import { AppError } from "../errors/app-error.js";
import type { EventLog } from "../events/event-log.js";
import type { StateStore } from "../store/state-store.js";
import { KeyedLock } from "./keyed-lock.js";
import { WorkerIds } from "./worker-ids.js";
import type { Worker } from "./worker.js";
import type { WorkerActivity, WorkerDownListener } from "./workers.js";

/**
 * What every role over the workers shares: the per-worker lock, stored state and events,
 * the workers' directories, the values to redact and the listeners for workers going down.
 * Operations that change a worker run under its lock.
 */
export class WorkerRecords implements WorkerActivity {
  readonly lock = new KeyedLock();
  /** Values of env vars given to workers: redacted from events and logs. */
  readonly secretValues = new Set<string>();
  private readonly downListeners = new Set<WorkerDownListener>();
  /** Last tool call or exec per worker, for idle timeouts. */
  private readonly activity = new Map<string, number>();

  constructor(
    readonly store: StateStore,
    readonly events: EventLog,
    readonly clock: Clock,
    private readonly dataDir: string,
    readonly ids: WorkerIds = new WorkerIds(store),
  ) {}

  /** The stored worker; not_found (with how to list them) when there is none. */
  async load(id: string): Promise<Worker> {
    const worker = await this.store.getWorker(id);
    if (worker === undefined)
      throw new AppError("not_found", `No worker with id "${id.slice(0, 64)}". List the workers to see their ids.`, {
        details: { action: "list_workers" },
      });
    return worker;
  }

  /** Stores the worker with a fresh updatedAt, and answers what was stored. */
  async save(worker: Worker): Promise<Worker> {
    const saved = { ...worker, updatedAt: isoNow(this.clock) };
    if (saved.error === undefined) delete saved.error;
    await this.store.putWorker(saved);
    return saved;
  }

  /** Appends to the worker's event log (which outlives the worker). */
  event(id: string, type: string, data?: Record<string, unknown>): Promise<unknown> {
    return this.events.append(id, type, data);
  }

  /** Notes a tool call or exec (for idleTimeoutMs). */
  touch(id: string): void {
    this.activity.set(id, this.clock.now());
  }

  /** When the worker last had a tool call or exec (now if none was noted). */
  lastActivity(id: string): number {
    return this.activity.get(id) ?? this.clock.now();
  }

  addSecrets(values: Iterable<string>): void {
    for (const value of values) this.secretValues.add(value);
  }

  onWorkerDown(listener: WorkerDownListener): () => void {
    this.downListeners.add(listener);
    return () => this.downListeners.delete(listener);
  }

  /** Tells the listeners the worker's container is going away on purpose. */
  emitDown(id: string): void {
    for (const listener of this.downListeners) listener(id);
  }

  /** The worker's directory under the data dir: its workspace and its control dir. */
  workerDir(id: string): string {
    return path.join(this.dataDir, "workers", id);
  }

  /** Where the worker's workspace lives (mounted at /workspace). */
  readonly workspaceOf = (id: string): string => path.join(this.workerDir(id), "workspace");

  /** The worker's control dir, mounted read-only in the container: policy file and proxy socket. */
  runDir(id: string): string {
    return path.join(this.workerDir(id), "run");
  }

  /** A worker id no stored worker has and no pool slot has set aside. */
  newId(): Promise<string> {
    return this.ids.next();
  }
}
