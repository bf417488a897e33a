import type { Approval } from "../approvals/approval.js";
import type { Task } from "../pipeline/task.js";
import type { StateStore } from "../store/state-store.js";
import type { Worker } from "../workers/worker.js";

/**
 * A StateStore held in memory for tests. Like a real store it keeps copies: what a caller
 * puts, gets or lists is never the stored object, so changing it changes nothing stored.
 */
export class InMemoryStateStore implements StateStore {
  private readonly workers = new Map<string, Worker>();
  private readonly approvals = new Map<string, Approval>();
  private readonly tasks = new Map<string, Task>();

  async listWorkers(): Promise<Worker[]> {
    return copies(this.workers);
  }

  async getWorker(id: string): Promise<Worker | undefined> {
    return copy(this.workers.get(id));
  }

  async putWorker(worker: Worker): Promise<void> {
    this.workers.set(worker.id, structuredClone(worker));
  }

  async deleteWorker(id: string): Promise<void> {
    this.workers.delete(id);
  }

  async listApprovals(): Promise<Approval[]> {
    return copies(this.approvals);
  }

  async getApproval(id: string): Promise<Approval | undefined> {
    return copy(this.approvals.get(id));
  }

  async putApproval(approval: Approval): Promise<void> {
    this.approvals.set(approval.id, structuredClone(approval));
  }

  async deleteApprovals(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.approvals.delete(id);
  }

  async listTasks(): Promise<Task[]> {
    return copies(this.tasks);
  }

  async getTask(id: string): Promise<Task | undefined> {
    return copy(this.tasks.get(id));
  }

  async putTask(task: Task): Promise<void> {
    this.tasks.set(task.id, structuredClone(task));
  }
}

function copy<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : structuredClone(value);
}

function copies<T>(records: ReadonlyMap<string, T>): T[] {
  return [...records.values()].map((record) => structuredClone(record));
}
