import type { Approval } from "../approvals/approval.js";
import type { Task } from "../pipeline/task.js";
import type { Worker } from "../workers/worker.js";

/** Where workers are persisted. Writes are serialized by the implementation. */
export interface StateStore {
  listWorkers(): Promise<Worker[]>;
  getWorker(id: string): Promise<Worker | undefined>;
  putWorker(worker: Worker): Promise<void>;
  deleteWorker(id: string): Promise<void>;
  listApprovals(): Promise<Approval[]>;
  getApproval(id: string): Promise<Approval | undefined>;
  putApproval(approval: Approval): Promise<void>;
  /** Deletes the approvals with these ids in one write; unknown ids are ignored. */
  deleteApprovals(ids: readonly string[]): Promise<void>;
  listTasks(): Promise<Task[]>;
  getTask(id: string): Promise<Task | undefined>;
  putTask(task: Task): Promise<void>;
}
