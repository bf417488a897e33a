import { randomBytes } from "node:crypto";
import { mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config/config.js";
import type { ContainerDriver, ExecSession } from "../docker/container-driver.js";
import { buildContainerSpec, LABEL_INSTANCE, resolveResources } from "../docker/container-spec.js";
import { AppError } from "../errors/app-error.js";
import { appendWorkerEvent } from "../events/event-log.js";
import { inspectSourceRepo, pinBase, unpinBase } from "../git/source-repo.js";
import type { StateStore } from "../store/state-store.js";
import { chownTree, createSharedClone } from "../workspace/shared-clone.js";
import { callInContainer, MCP_SERVER_ARGV } from "./in-container.js";
import {
  DEFAULT_EXEC_MAX_OUTPUT_BYTES,
  DEFAULT_EXEC_TIMEOUT_MS,
  DiffResultSchema,
  ExecResultSchema,
  type DiffResult,
  type ExecRequest,
  type ExecResponse,
} from "./exec-request.js";
import { exportBranch, type ExportResult } from "./export-branch.js";
import { KeyedLock } from "./keyed-lock.js";
import { reconcileWorkers, refreshStatus } from "./worker-status.js";
import { GateStateSchema, type CreateWorkerInput, type Worker } from "./worker.js";

const STOP_TIMEOUT_S = 5;
/** Time the host waits beyond an exec's own timeout before giving up on the container. */
const EXEC_GRACE_MS = 15_000;

/** What the manager needs from the outside world. */
export interface WorkerManagerDeps {
  readonly config: Config;
  readonly store: StateStore;
  readonly driver: ContainerDriver;
  /** The sandbox image workers use unless they ask for another. */
  readonly defaultImage: string;
  /** Identifies this control plane's containers (derived from the data dir). */
  readonly instance: string;
  readonly sandboxUser: { uid: number; gid: number };
  readonly hostCpus: number;
  /** Whether workspaces must be handed to the sandbox user (the control plane runs as another uid). */
  readonly chownWorkspaces: boolean;
}

/** Called when a worker's container goes away on purpose (stop, remove), to end its sessions. */
export type WorkerDownListener = (workerId: string) => void;

/**
 * Owns the lifecycle of workers: workspace, container, state and event log. Operations on
 * one worker run one at a time; a failed creation leaves nothing behind.
 */
export class WorkerManager {
  private readonly lock = new KeyedLock();
  private readonly downListeners = new Set<WorkerDownListener>();

  constructor(private readonly deps: WorkerManagerDeps) {}

  /** Registers a listener for workers going down; returns the unsubscribe function. */
  onWorkerDown(listener: WorkerDownListener): () => void {
    this.downListeners.add(listener);
    return () => this.downListeners.delete(listener);
  }

  /** Matches stored workers with labelled containers after a restart. */
  async reconcile(): Promise<void> {
    await reconcileWorkers(this.deps.store, this.deps.driver, { [LABEL_INSTANCE]: this.deps.instance });
  }

  async create(input: CreateWorkerInput): Promise<Worker> {
    const source = await inspectSourceRepo(input.repo, input.baseRef ?? "HEAD");
    const id = await this.newId();
    const prefix = input.name ?? "agent";
    const now = new Date().toISOString();
    const worker: Worker = {
      id,
      name: input.name ?? `${prefix}-${id}`,
      status: "starting",
      repo: source.path,
      branch: `workcell/${prefix}-${id}`,
      baseRef: input.baseRef ?? "HEAD",
      baseCommit: source.baseCommit,
      workspace: path.join(this.workerDir(id), "workspace"),
      image: input.image ?? this.deps.defaultImage,
      permissions: input.permissions ?? {},
      resources: resolveResources(input.resources),
      createdAt: now,
      updatedAt: now,
      desired: "running",
      env: input.env ?? {},
      objectDirs: [...source.objectDirs],
    };
    return this.lock.run(id, async () => {
      if (input.image !== undefined && !(await this.deps.driver.imageExists(input.image))) {
        throw new AppError("invalid_input", `image: "${input.image}" does not exist on the Docker engine. Build or pull it first, or omit image to use the sandbox image.`, { details: { field: "image" } });
      }
      try {
        await pinBase(worker.repo, id, worker.baseCommit);
        await createSharedClone(worker.repo, worker.workspace, worker.branch, worker.baseCommit);
        if (this.deps.chownWorkspaces) await chownTree(worker.workspace, this.deps.sandboxUser.uid, this.deps.sandboxUser.gid);
        await this.deps.store.putWorker(worker);
        const running = await this.launch(worker);
        await appendWorkerEvent(this.workerDir(id), "created", { branch: worker.branch, baseCommit: worker.baseCommit });
        return running;
      } catch (error) {
        await this.discard(worker);
        throw error;
      }
    });
  }

  async list(): Promise<Worker[]> {
    const workers = await this.deps.store.listWorkers();
    const refreshed = await Promise.all(workers.map((worker) => this.lock.run(worker.id, () => this.refresh(worker))));
    return refreshed.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async get(id: string): Promise<Worker> {
    return this.lock.run(id, async () => this.refresh(await this.load(id)));
  }

  async stop(id: string): Promise<Worker> {
    return this.lock.run(id, async () => {
      const worker = await this.load(id);
      this.emitDown(id);
      if (worker.containerId !== undefined) await this.deps.driver.stop(worker.containerId, STOP_TIMEOUT_S);
      const stopped = await this.save({ ...worker, desired: "stopped", status: "stopped", error: undefined });
      await appendWorkerEvent(this.workerDir(id), "stopped");
      return stopped;
    });
  }

  async start(id: string): Promise<Worker> {
    return this.lock.run(id, async () => {
      const worker = await this.load(id);
      const exists = await stat(worker.workspace).then((s) => s.isDirectory(), () => false);
      if (!exists) throw new AppError("conflict", `The workspace of worker ${id} is gone (${worker.workspace}); it cannot be started. Remove the worker and create a new one.`);
      const started = await this.launch({ ...worker, desired: "running" });
      await appendWorkerEvent(this.workerDir(id), "started");
      return started;
    });
  }

  async remove(id: string, options: { keepWorkspace: boolean }): Promise<{ id: string; status: "removed"; workspace?: string }> {
    return this.lock.run(id, async () => {
      const worker = await this.load(id);
      this.emitDown(id);
      if (worker.containerId !== undefined) await this.deps.driver.remove(worker.containerId);
      await unpinBase(worker.repo, id);
      await appendWorkerEvent(this.workerDir(id), "removed", { keepWorkspace: options.keepWorkspace });
      if (!options.keepWorkspace) await rm(this.workerDir(id), { recursive: true, force: true });
      await this.deps.store.deleteWorker(id);
      return { id, status: "removed", ...(options.keepWorkspace ? { workspace: worker.workspace } : {}) };
    });
  }

  /** The id of a running worker's container, or a conflict error that says how to start it. */
  async requireRunning(id: string): Promise<{ worker: Worker; containerId: string }> {
    const worker = await this.get(id);
    // A worker whose task failed is "failed" but its container still serves inspection.
    const taskFailedButUp = worker.gate?.task?.status === "failed" && worker.containerId !== undefined && (await this.deps.driver.inspect(worker.containerId))?.running === true;
    if ((worker.status !== "running" && !taskFailedButUp) || worker.containerId === undefined) {
      throw new AppError("conflict", `Worker ${id} is ${worker.status}, not running. Start it with POST /v1/workers/${id}/start.`, { details: { status: worker.status } });
    }
    return { worker, containerId: worker.containerId };
  }

  /** Starts the in-container MCP server for one session (a non-TTY exec with its streams attached), handing it the gate state. */
  async openMcpSession(id: string): Promise<ExecSession> {
    const { worker, containerId } = await this.requireRunning(id);
    const env = worker.gate === undefined ? [] : [`WORKCELL_GATE=${JSON.stringify(worker.gate)}`];
    return this.deps.driver.attach(containerId, MCP_SERVER_ARGV, env);
  }

  /**
   * Records the finish gate state a worker's tools reported. The report comes from inside
   * the sandbox, so it is validated and can only change this worker's own task outcome.
   */
  async recordGate(id: string, reported: unknown): Promise<void> {
    const parsed = GateStateSchema.safeParse(reported);
    if (!parsed.success) return;
    await this.lock.run(id, async () => {
      const worker = await this.deps.store.getWorker(id);
      if (worker === undefined) return;
      const endedBefore = worker.gate?.task ?? null;
      // An ended task stays ended: a later report cannot reopen it.
      const gate = endedBefore === null ? parsed.data : { ...parsed.data, task: endedBefore };
      await this.save(await refreshStatus(this.deps.driver, { ...worker, gate }));
      if (endedBefore === null && gate.task !== null) {
        await appendWorkerEvent(this.workerDir(id), `task_${gate.task.status}`, { summary: gate.task.summary, reason: gate.task.reason });
      }
    });
  }

  async exec(id: string, request: ExecRequest): Promise<ExecResponse> {
    const { containerId } = await this.requireRunning(id);
    const timeoutMs = request.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
    const payload = Buffer.from(JSON.stringify({ ...request, timeoutMs, maxOutputBytes: DEFAULT_EXEC_MAX_OUTPUT_BYTES }));
    const signal = AbortSignal.timeout(timeoutMs + EXEC_GRACE_MS);
    try {
      const result = await callInContainer(this.deps.driver, containerId, ["run"], ExecResultSchema, { stdin: payload, signal });
      await appendWorkerEvent(this.workerDir(id), "exec", { exitCode: result.exitCode, timedOut: result.timedOut, durationMs: result.durationMs });
      return result;
    } catch (error) {
      if (signal.aborted) throw new AppError("timeout", `The command did not finish within ${timeoutMs} ms and the sandbox did not answer in time. Check the worker's state.`);
      throw error;
    }
  }

  async diff(id: string): Promise<DiffResult> {
    const { worker, containerId } = await this.requireRunning(id);
    return callInContainer(this.deps.driver, containerId, ["diff", worker.baseCommit], DiffResultSchema);
  }

  async export(id: string, branch: string | undefined): Promise<ExportResult> {
    const { containerId } = await this.requireRunning(id);
    return this.lock.run(id, async () => {
      const worker = await this.load(id);
      const target = branch ?? worker.branch;
      const scratch = path.join(this.deps.config.dataDir, "tmp");
      await mkdir(scratch, { recursive: true, mode: 0o700 });
      const result = await exportBranch(this.deps.driver, containerId, worker, target, scratch);
      await this.save({ ...worker, lastExport: { branch: target, commit: result.commit, at: new Date().toISOString() } });
      await appendWorkerEvent(this.workerDir(id), "exported", { branch: target, commit: result.commit });
      return result;
    });
  }

  private async launch(worker: Worker): Promise<Worker> {
    const { driver } = this.deps;
    let containerId = worker.containerId;
    if (containerId === undefined || (await driver.inspect(containerId)) === undefined) {
      containerId = await driver.create(
        buildContainerSpec(worker, { instance: this.deps.instance, user: this.deps.sandboxUser, hostCpus: this.deps.hostCpus }),
      );
      await this.save({ ...worker, containerId });
    }
    await driver.start(containerId);
    return this.save({ ...worker, containerId, status: "running", error: undefined });
  }

  /** Undoes a half-made creation; every step tolerates what was never done. */
  private async discard(worker: Worker): Promise<void> {
    const stored = await this.deps.store.getWorker(worker.id);
    const containerId = stored?.containerId ?? worker.containerId;
    if (containerId !== undefined) await this.deps.driver.remove(containerId).catch(() => undefined);
    await unpinBase(worker.repo, worker.id).catch(() => undefined);
    await rm(this.workerDir(worker.id), { recursive: true, force: true });
    await this.deps.store.deleteWorker(worker.id);
  }

  private async refresh(worker: Worker): Promise<Worker> {
    const refreshed = await refreshStatus(this.deps.driver, worker);
    return refreshed === worker ? worker : this.save(refreshed);
  }

  private async load(id: string): Promise<Worker> {
    const worker = await this.deps.store.getWorker(id);
    if (worker === undefined) throw new AppError("not_found", `No worker with id "${id}". List workers with GET /v1/workers.`);
    return worker;
  }

  private async save(worker: Worker): Promise<Worker> {
    const saved = { ...worker, updatedAt: new Date().toISOString() };
    if (saved.error === undefined) delete saved.error;
    await this.deps.store.putWorker(saved);
    return saved;
  }

  private emitDown(id: string): void {
    for (const listener of this.downListeners) listener(id);
  }

  private workerDir(id: string): string {
    return path.join(this.deps.config.dataDir, "workers", id);
  }

  private async newId(): Promise<string> {
    for (;;) {
      const id = randomBytes(4).toString("hex");
      if ((await this.deps.store.getWorker(id)) === undefined) return id;
    }
  }
}
