import { mkdir, rm, stat } from "node:fs/promises";
import type { ContainerDriver } from "../docker/container-driver.js";
import type { RuntimeCatalog } from "../docker/runtime-choice.js";
import { AppError } from "../errors/app-error.js";
import { pinBase, unpinBase } from "../git/source-repo.js";
import { createDiskImage, disposeWorkspace, mountDiskImage, unmountWorkspace } from "../workspace/disk-image.js";
import { chownTree, createSharedClone } from "../workspace/shared-clone.js";
import type { McpStandby } from "./mcp-standby.js";
import { claimPoolSlot, isPoolable } from "./pool-claim.js";
import { restoreWorkers } from "./restore-workers.js";
import type { ToolsChannels } from "./tools-channel.js";
import { namesOf, planWorker } from "./worker-creation.js";
import type { WorkerEgress } from "./worker-egress.js";
import type { WorkerLauncher } from "./worker-launcher.js";
import type { PoolSlot } from "./worker-pool.js";
import type { WorkerPools } from "./worker-pools.js";
import type { WorkerRecords } from "./worker-records.js";
import type { CreateWorkerInput, RemoveResult, Worker } from "./worker.js";
import type { WorkerDownListener, WorkerLifecycle } from "./workers.js";

const STOP_TIMEOUT_S = 5;

/** What the lifecycle needs. */
export interface LifecycleDeps {
  readonly records: WorkerRecords;
  readonly driver: ContainerDriver;
  readonly launcher: WorkerLauncher;
  readonly egress: WorkerEgress;
  readonly channels: ToolsChannels;
  readonly dataDir: string;
  /** The runtime WORKCELL_RUNTIME asks for, if any. */
  readonly configuredRuntime: string | undefined;
  /** The sandbox image workers use unless they ask for another. */
  readonly defaultImage: string;
  /** Identifies this control plane's containers (derived from the data dir). */
  readonly instance: string;
  /** Who workspaces are handed to, when the control plane runs as another uid. */
  readonly workspaceOwner: { uid: number; gid: number } | undefined;
  /** The control plane's own environment, source of env vars granted by name. */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** OCI runtimes the engine offers, and its default. */
  readonly runtimes: RuntimeCatalog;
  /** Started containers ready to become default-policy workers (absent: always cold). */
  readonly pools?: WorkerPools;
  /** MCP servers started with each container for its first session. */
  readonly standby?: McpStandby;
  /** Whether each workspace gets its own filesystem image, making diskMb a hard limit. */
  readonly diskImages?: boolean;
}

/**
 * Creates, starts, stops and removes workers: workspace, container, state and event log.
 * Operations on one worker run one at a time; a failed creation leaves nothing behind.
 */
export class LifecycleController implements WorkerLifecycle {
  /** Names of workers being created right now, so two creations cannot both take one name. */
  private readonly namesInCreation = new Set<string>();

  constructor(private readonly deps: LifecycleDeps) {}

  onWorkerDown(listener: WorkerDownListener): () => void {
    return this.deps.records.onWorkerDown(listener);
  }

  async reconcile(): Promise<void> {
    const { records, driver, egress, instance, dataDir } = this.deps;
    await restoreWorkers({ records, driver, egress, instance, dataDir });
  }

  async create(input: CreateWorkerInput): Promise<Worker> {
    if (input.name !== undefined) await this.claimName(input.name);
    try {
      return await this.createClaimed(input);
    } finally {
      if (input.name !== undefined) this.namesInCreation.delete(input.name);
    }
  }

  async start(id: string): Promise<Worker> {
    const { records } = this.deps;
    return records.lock.run(id, async () => {
      const worker = await records.load(id);
      if (worker.diskEnforcement === "image") await mountDiskImage(worker.workspace);
      const exists = await stat(worker.workspace).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (!exists)
        throw new AppError(
          "conflict",
          `The workspace of worker ${id} is gone (${worker.workspace}); it cannot be started. Remove the worker and create a new one.`,
        );
      const started = await this.deps.launcher.launch({ ...worker, desired: "running" });
      await records.event(id, "started");
      return started;
    });
  }

  async stop(id: string): Promise<Worker> {
    const { records } = this.deps;
    await this.preempt(id, "the worker is being stopped", "stop");
    return records.lock.run(id, async () => {
      const stopped = await this.halt(await records.load(id), {});
      await records.event(id, "stopped");
      return stopped;
    });
  }

  async stopForLimit(id: string, reason: string): Promise<void> {
    const { records } = this.deps;
    await this.preempt(id, `the worker is being stopped: ${reason}`, "stop");
    await records.lock.run(id, async () => {
      const worker = await records.load(id);
      if (worker.desired !== "running") return;
      await this.halt(worker, { stopReason: reason });
      await records.event(id, "stopped_by_limit", { reason });
    });
  }

  async remove(id: string, options: { keepWorkspace: boolean }): Promise<RemoveResult> {
    const { records, driver } = this.deps;
    await this.preempt(id, "the worker is being removed", "remove");
    return records.lock.run(id, async () => {
      const worker = await records.load(id);
      records.emitDown(id);
      if (worker.containerId !== undefined) {
        this.deps.standby?.drop(worker.containerId);
        await driver.remove(worker.containerId);
      }
      await this.deps.egress.forget(id);
      await unpinBase(worker.repo, id);
      await records.event(id, "removed", { keepWorkspace: options.keepWorkspace });
      // The event log stays: the audit trail outlives the worker.
      await disposeWorkspace(worker.workspace, { keep: options.keepWorkspace });
      await rm(records.runDir(id), { recursive: true, force: true });
      await records.store.deleteWorker(id);
      return { id, status: "removed", ...(options.keepWorkspace ? { workspace: worker.workspace } : {}) };
    });
  }

  async close(): Promise<void> {
    await this.deps.channels.closeAll();
    await this.deps.egress.closeAll();
  }

  /**
   * The worker made from a warm pool slot, or undefined (an event says why) when the claim
   * failed and the worker is to start cold. A repository pool's slot comes with the id it set
   * aside, which the worker takes (with the name and branch that follow from it): the slot's
   * branch and pin are named for it.
   */
  private async claimSlot(input: CreateWorkerInput, planned: Worker, slot: PoolSlot): Promise<Worker | undefined> {
    const { records, driver } = this.deps;
    const reserved = slot.checkout?.workerId;
    const worker =
      reserved === undefined ? planned : { ...planned, ...namesOf(reserved, input.name, records.workspaceOf) };
    const claimDeps = { records, driver, egress: this.deps.egress, owner: this.deps.workspaceOwner };
    try {
      return await records.lock.run(worker.id, () => claimPoolSlot(claimDeps, worker, slot));
    } catch (error) {
      records
        .event(worker.id, "pool_claim_failed", { reason: error instanceof Error ? error.message : String(error) })
        .catch(() => undefined);
      return undefined;
    } finally {
      // Stored by now, or given up: either way no longer the slot's to hold.
      if (reserved !== undefined) records.ids.release(reserved);
    }
  }

  /** Refuses a name another worker has, or is being created with: a name must find one worker. */
  private async claimName(name: string): Promise<void> {
    const holder = this.namesInCreation.has(name)
      ? "being created"
      : (await this.deps.records.store.listWorkers()).find((worker) => worker.name === name)?.id;
    if (holder !== undefined) {
      throw new AppError(
        "conflict",
        `name: a worker named "${name}" exists already (${holder}). Choose another name, or remove that worker first.`,
        {
          details: { field: "name", worker: holder },
        },
      );
    }
    this.namesInCreation.add(name);
  }

  private async createClaimed(input: CreateWorkerInput): Promise<Worker> {
    const { records, driver, pools } = this.deps;
    const { worker, secrets, runtimeNote } = await planWorker(input, {
      dataDir: this.deps.dataDir,
      hostEnv: this.deps.hostEnv,
      runtimes: this.deps.runtimes,
      configuredRuntime: this.deps.configuredRuntime,
      defaultImage: this.deps.defaultImage,
      diskEnforcement: this.deps.diskImages === true ? "image" : "watchdog",
      clock: records.clock,
      newId: () => records.newId(),
      workspaceOf: records.workspaceOf,
    });
    records.addSecrets(secrets);
    const { id } = worker;
    const slot =
      pools !== undefined && isPoolable(worker, this.deps.defaultImage, pools.runtime)
        ? await pools.claim(worker.repo)
        : undefined;
    if (slot !== undefined) {
      const claimed = await this.claimSlot(input, worker, slot);
      if (claimed !== undefined) return claimed;
    }
    return records.lock.run(id, async () => {
      if (input.image !== undefined && !(await driver.imageExists(input.image))) {
        throw new AppError(
          "invalid_input",
          `image: "${input.image}" does not exist on the Docker engine. Build or pull it first, or omit image to use the sandbox image.`,
          { details: { field: "image" } },
        );
      }
      try {
        await pinBase(worker.repo, id, worker.baseCommit);
        if (worker.diskEnforcement === "image") await createDiskImage(worker.workspace, worker.resources.diskMb);
        else await mkdir(worker.workspace, { recursive: true });
        await records.store.putWorker(worker);
        // The container (and the MCP server started with it) comes up while the workspace is
        // cloned into its mounted directory: nothing in it reads the workspace before the 201.
        const owner = this.deps.workspaceOwner;
        const [launched, cloned] = await Promise.allSettled([
          this.deps.launcher.launch(worker),
          (async () => {
            await createSharedClone(worker.repo, worker.workspace, worker.branch, worker.baseCommit);
            if (owner !== undefined) await chownTree(worker.workspace, owner.uid, owner.gid);
          })(),
        ]);
        if (cloned.status === "rejected") throw cloned.reason;
        if (launched.status === "rejected") throw launched.reason;
        await records.event(id, "created", {
          branch: worker.branch,
          baseCommit: worker.baseCommit,
          runtime: worker.runtime,
          ...(runtimeNote === undefined ? {} : { runtimeNote }),
        });
        return launched.value;
      } catch (error) {
        await this.discard(worker);
        throw error;
      }
    });
  }

  /** Ends the worker's sessions, container and proxy, and records it as stopped on purpose. Call under the lock. */
  private async halt(worker: Worker, extra: Partial<Worker>): Promise<Worker> {
    this.deps.records.emitDown(worker.id);
    if (worker.containerId !== undefined) {
      this.deps.standby?.drop(worker.containerId);
      await this.deps.driver.stop(worker.containerId, STOP_TIMEOUT_S);
    }
    await this.deps.egress.close(worker.id);
    return this.deps.records.save({ ...worker, ...extra, desired: "stopped", status: "stopped", error: undefined });
  }

  /** Undoes a half-made creation; every step tolerates what was never done. */
  private async discard(worker: Worker): Promise<void> {
    const { records, driver } = this.deps;
    const stored = await records.store.getWorker(worker.id);
    const containerId = stored?.containerId ?? worker.containerId;
    if (containerId !== undefined) await driver.remove(containerId).catch(() => undefined);
    await this.deps.egress.forget(worker.id).catch(() => undefined);
    await unpinBase(worker.repo, worker.id).catch(() => undefined);
    await unmountWorkspace(worker.workspace).catch(() => undefined);
    await rm(records.workerDir(worker.id), { recursive: true, force: true });
    await records.store.deleteWorker(worker.id);
  }

  /**
   * Ends whatever holds or waits for the worker's lock: aborts the operations and, when there
   * were any, stops or removes the container so nothing inside it keeps them waiting. The
   * workspace is untouched. The caller then takes the lock as usual.
   */
  private async preempt(id: string, reason: string, how: "stop" | "remove"): Promise<void> {
    const { records, driver } = this.deps;
    if (!records.lock.preempt(id, reason)) return;
    const containerId = (await records.store.getWorker(id))?.containerId;
    if (containerId === undefined) return;
    if (how === "stop") await driver.stop(containerId, STOP_TIMEOUT_S);
    else await driver.remove(containerId);
  }
}
