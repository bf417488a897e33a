import { mkdir, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { Low } from "lowdb";
import { DurableJsonFile } from "./durable-json-file.js";
import { z } from "zod";
import { AppError } from "../errors/app-error.js";
import { ApprovalSchema, type Approval } from "../approvals/approval.js";
import { TaskSchema, type Task } from "../pipeline/task.js";
import { WorkerSchema, type Worker } from "../workers/worker.js";
import type { StateStore } from "./state-store.js";

const StateSchema = z.object({
  version: z.literal(1),
  workers: z.record(z.string(), WorkerSchema),
  approvals: z.record(z.string(), ApprovalSchema).default({}),
  tasks: z.record(z.string(), TaskSchema).default({}),
});
type State = z.infer<typeof StateSchema>;

/**
 * The embedded store: one JSON file written atomically by lowdb, validated when read back,
 * with every mutation going through one queue so concurrent requests cannot lose writes.
 */
export class LowdbStateStore implements StateStore {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly db: Low<State>) {}

  /** Opens (or creates) `<dataDir>/state.json`; a corrupt file is an error, never silently reset. */
  static async open(dataDir: string): Promise<LowdbStateStore> {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const file = path.join(dataDir, "state.json");
    // A crash between writing and renaming leaves a temporary file; the state itself is whole.
    for (const name of await readdir(dataDir)) {
      if (/^\.state\.json\.[0-9a-f]+\.tmp$/.test(name)) await rm(path.join(dataDir, name), { force: true });
    }
    const db = new Low<State>(new DurableJsonFile<State>(file), { version: 1, workers: {}, approvals: {}, tasks: {} });
    try {
      await db.read();
    } catch (error) {
      throw new AppError(
        "internal",
        `The state file ${file} is not valid JSON. Restore it from a backup or move it aside to start empty.`,
        { cause: error },
      );
    }
    const parsed = StateSchema.safeParse(db.data);
    if (!parsed.success) {
      throw new AppError(
        "internal",
        `The state file ${file} does not match the expected shape (${parsed.error.issues[0]?.message}). Move it aside to start empty.`,
      );
    }
    db.data = parsed.data;
    return new LowdbStateStore(db);
  }

  async listWorkers(): Promise<Worker[]> {
    await this.queue;
    return Object.values(this.db.data.workers).map((worker) => structuredClone(worker));
  }

  async getWorker(id: string): Promise<Worker | undefined> {
    await this.queue;
    const worker = this.db.data.workers[id];
    return worker === undefined ? undefined : structuredClone(worker);
  }

  putWorker(worker: Worker): Promise<void> {
    return this.enqueue(async () => {
      this.db.data.workers[worker.id] = structuredClone(worker);
      await this.db.write();
    });
  }

  deleteWorker(id: string): Promise<void> {
    return this.enqueue(async () => {
      delete this.db.data.workers[id];
      await this.db.write();
    });
  }

  async listApprovals(): Promise<Approval[]> {
    await this.queue;
    return Object.values(this.db.data.approvals).map((approval) => structuredClone(approval));
  }

  async getApproval(id: string): Promise<Approval | undefined> {
    await this.queue;
    const approval = this.db.data.approvals[id];
    return approval === undefined ? undefined : structuredClone(approval);
  }

  putApproval(approval: Approval): Promise<void> {
    return this.enqueue(async () => {
      this.db.data.approvals[approval.id] = structuredClone(approval);
      await this.db.write();
    });
  }

  deleteApprovals(ids: readonly string[]): Promise<void> {
    return this.enqueue(async () => {
      const known = ids.filter((id) => id in this.db.data.approvals);
      if (known.length === 0) return;
      for (const id of known) delete this.db.data.approvals[id];
      await this.db.write();
    });
  }

  async listTasks(): Promise<Task[]> {
    await this.queue;
    return Object.values(this.db.data.tasks).map((task) => structuredClone(task));
  }

  async getTask(id: string): Promise<Task | undefined> {
    await this.queue;
    const task = this.db.data.tasks[id];
    return task === undefined ? undefined : structuredClone(task);
  }

  putTask(task: Task): Promise<void> {
    return this.enqueue(async () => {
      this.db.data.tasks[task.id] = structuredClone(task);
      await this.db.write();
    });
  }

  private enqueue(write: () => Promise<void>): Promise<void> {
    const next = this.queue.then(write, write);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
