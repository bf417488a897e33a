import type { ContainerDriver } from "../docker/container-driver.js";
import { raceAbort } from "../docker/exec-deadline.js";
import { AppError } from "../errors/app-error.js";
import type { WorkerRecords } from "./worker-records.js";
import { refreshStatus } from "./worker-status.js";
import type { Worker } from "./worker.js";
import type { WorkerLookup } from "./workers.js";

/** Longest a status refresh waits for the engine before answering the stored status. */
const STATUS_INSPECT_DEADLINE_MS = 10_000;
/** Longest list and get wait for a worker's lock before answering its stored state. */
const READ_WAIT_MS = 2_000;

/** Finds workers in the store, their status refreshed from the engine. */
export class WorkerReader implements WorkerLookup {
  constructor(
    private readonly records: WorkerRecords,
    private readonly driver: ContainerDriver,
  ) {}

  async list(): Promise<Worker[]> {
    const workers = await this.records.store.listWorkers();
    // Each worker is read again under its lock: a copy read before the lock may be stale,
    // and saving it back would undo what the lock holder just wrote. A worker whose lock is
    // held answers from stored state: list never waits behind a stuck operation.
    const refreshed = await Promise.all(workers.map((worker) => this.refreshOrStored(worker.id)));
    return refreshed
      .filter((worker): worker is Worker => worker !== undefined)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async get(id: string): Promise<Worker> {
    return (await this.refreshOrStored(id)) ?? this.records.load(id);
  }

  async resolve(ref: string): Promise<Worker> {
    const byId = await this.records.store.getWorker(ref);
    if (byId !== undefined) return this.get(byId.id);
    const named = (await this.records.store.listWorkers()).filter((worker) => worker.name === ref);
    if (named.length === 0)
      throw new AppError(
        "not_found",
        `No worker with id or name "${ref.slice(0, 64)}". List the workers to see their ids and names.`,
        { details: { action: "list_workers" } },
      );
    if (named.length > 1) {
      const ids = named.map((worker) => worker.id);
      throw new AppError(
        "conflict",
        `${named.length} workers are named "${ref.slice(0, 64)}" (${ids.join(", ")}). Use the id of the one you mean.`,
        { details: { workers: ids } },
      );
    }
    return this.get((named[0] as Worker).id);
  }

  async requireRunning(id: string): Promise<{ worker: Worker; containerId: string }> {
    const worker = await this.get(id);
    // A worker whose task failed is "failed" but its container still serves inspection.
    const taskFailedButUp =
      worker.gate?.task?.status === "failed" &&
      worker.containerId !== undefined &&
      (await this.driver.inspect(worker.containerId))?.running === true;
    if ((worker.status !== "running" && !taskFailedButUp) || worker.containerId === undefined) {
      throw new AppError("conflict", `Worker ${id} is ${worker.status}, not running. Start it first.`, {
        details: { status: worker.status, action: "start_worker", worker: id },
      });
    }
    return { worker, containerId: worker.containerId };
  }

  /** The worker as the engine sees it now, saved (with a status_changed event) when it changed. Call under the lock. */
  async refresh(worker: Worker): Promise<Worker> {
    const refreshed = await refreshStatus(this.driver, worker, STATUS_INSPECT_DEADLINE_MS);
    if (refreshed === worker) return worker;
    if (refreshed.status !== worker.status) {
      await this.records.event(worker.id, "status_changed", {
        from: worker.status,
        to: refreshed.status,
        error: refreshed.error,
      });
    }
    return this.records.save(refreshed);
  }

  /**
   * The worker refreshed from the engine under its lock once the lock is free, or as stored
   * if it stays held for READ_WAIT_MS: readers never wait long behind a stuck operation.
   * Undefined when there is no such worker.
   */
  private async refreshOrStored(id: string): Promise<Worker | undefined> {
    const waited = AbortSignal.timeout(READ_WAIT_MS);
    const { lock, store } = this.records;
    for (;;) {
      const refreshed = lock.runIfIdle(id, async () => {
        const current = await store.getWorker(id);
        return current === undefined ? undefined : this.refresh(current);
      });
      if (refreshed !== undefined) return refreshed;
      const idle = await raceAbort(lock.whenIdle(id), waited).then(
        () => true,
        () => false,
      );
      if (!idle) return store.getWorker(id);
    }
  }
}
