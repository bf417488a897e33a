import type { ContainerDriver } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";
import { GateStateSchema } from "../../contract/gate.js";
import type { WorkerRecords } from "./worker-records.js";
import { refreshStatus } from "./worker-status.js";
import type { Worker } from "./worker.js";
import type { WorkerTasks } from "./workers.js";

/** Keeps each worker's task: the finish gate its tools report, a fresh task, its agent's model. */
export class TaskRecorder implements WorkerTasks {
  constructor(
    private readonly records: WorkerRecords,
    private readonly driver: ContainerDriver,
  ) {}

  /**
   * Records the finish gate state a worker's tools reported. The report comes from inside
   * the sandbox, so it is validated and can only change this worker's own task outcome.
   */
  async recordGate(id: string, reported: unknown): Promise<void> {
    const parsed = GateStateSchema.safeParse(reported);
    if (!parsed.success) return;
    const { records } = this;
    await records.lock.run(id, async () => {
      const worker = await records.store.getWorker(id);
      if (worker === undefined) return;
      const endedBefore = worker.gate?.task ?? null;
      // An ended task stays ended: a later report cannot reopen it.
      const gate = endedBefore === null ? parsed.data : { ...parsed.data, task: endedBefore };
      await records.save(await refreshStatus(this.driver, { ...worker, gate }));
      if (endedBefore === null && gate.task !== null) {
        await records.event(id, `task_${gate.task.status}`, { summary: gate.task.summary, reason: gate.task.reason });
      }
    });
  }

  /**
   * Starts a new task on a worker whose task ended: its finish gate starts fresh (nothing
   * validated, no failures, no outcome) and its MCP sessions end, so that none still holding
   * the old outcome can report it again. The previous outcome stays in the events.
   */
  async startNewTask(id: string): Promise<Worker> {
    const { records } = this;
    return records.lock.run(id, async () => {
      const worker = await records.load(id);
      const previous = worker.gate?.task ?? null;
      if (previous === null) {
        throw new AppError(
          "conflict",
          `Worker ${id}'s task has not ended: finish it (or let it fail) before starting another, so its failure count cannot be wiped.`,
          {
            details: { reason: "task_open" },
          },
        );
      }
      const saved = await records.save(
        await refreshStatus(this.driver, { ...worker, gate: { validatedTree: null, failures: 0, task: null } }),
      );
      await records.event(id, "task_started", { previous: previous.status });
      records.emitDown(id);
      return saved;
    });
  }

  async setModel(id: string, model: string): Promise<Worker> {
    const { records } = this;
    return records.lock.run(id, async () => {
      const saved = await records.save({ ...(await records.load(id)), model });
      await records.event(id, "model_changed", { model });
      return saved;
    });
  }
}
