import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config/config.js";
import type { ContainerDriver, ExecSession } from "../docker/container-driver.js";
import { ToolsChannels } from "./tools-channel.js";
import type { McpStandby } from "./mcp-standby.js";
import { openInteractiveShell, type InteractiveShell, type ShellTerminal } from "./interactive-shell.js";
import { buildContainerSpec, LABEL_INSTANCE, LABEL_SPEC, resolveResources, usesEgressProxy, type SpecOptions } from "../docker/container-spec.js";
import { chooseRuntime, runtimeNeedsOf, type RuntimeCatalog } from "../docker/runtime-choice.js";
import { defaultPolicy } from "../permissions/policy.js";
import type { PermissionsInput, Policy } from "../permissions/policy.js";
import { acceptAuditEntries, type AuditSource } from "../permissions/audit-entry.js";
import { suggestPermissions, type SkippedEntry } from "../permissions/suggest.js";
import { AppError } from "../errors/app-error.js";
import type { AdmissionQueue } from "../admission/admission-queue.js";
import type { EventLog } from "../events/event-log.js";
import { baseRefName, pinBase, unpinBase } from "../git/source-repo.js";
import type { StateStore } from "../store/state-store.js";
import { adoptPooledCheckout, chownTree, createSharedClone, createStandaloneClone } from "../workspace/shared-clone.js";
import { createDiskImage, disposeWorkspace, mountDiskImage, releaseOrphanImages, unmountWorkspace } from "../workspace/disk-image.js";
import type { PoolSlot } from "./worker-pool.js";
import type { WorkerPools } from "./worker-pools.js";
import { mcpServerArgv, TOOLS_EXEC } from "./in-container.js";
import type { DiffResult, ExecRequest, ExecResponse } from "./exec-request.js";
import type { ExportResult } from "./export-branch.js";
import { diffWorker, execInWorker, exportWorker, type OperationContext } from "./worker-operations.js";
import { planWorker } from "./worker-creation.js";
import { assertGrantsExist, findHiddenPaths, policyFromInput, toPermissionsInput, writePolicyFile } from "./worker-policy.js";
import { admitBindSources, verifyBindSources } from "./bind-sources.js";
import { KeyedLock } from "./keyed-lock.js";
import { raceAbort } from "../docker/exec-deadline.js";
import { WorkerEgress, type NetPrompter } from "./worker-egress.js";
import { reconcileWorkers, refreshStatus } from "./worker-status.js";
import type { CreateWorkerInput, RemoveResult, Worker } from "./worker.js";
import { GateStateSchema } from "../../contract/gate.js";
import { GATE_VAR, PROXY_SOCKET_NAME } from "../../contract/container.js";

const STOP_TIMEOUT_S = 5;
/** Longest a status refresh waits for the engine before answering the stored status. */
const STATUS_INSPECT_DEADLINE_MS = 10_000;
/** Longest list and get wait for a worker's lock before answering its stored state. */
const READ_WAIT_MS = 2_000;

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
  /** The control plane's own environment, source of env vars granted by name. */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** OCI runtimes the engine offers, and its default. */
  readonly runtimes: RuntimeCatalog;
  /** The audit trail. */
  readonly events: EventLog;
  /** The host-wide queue for heavy work (absent: unmetered). */
  readonly admission?: AdmissionQueue;
  /** Started containers ready to become default-policy workers (absent: always cold). */
  readonly pools?: WorkerPools;
  /** MCP servers started with each container for its first session (absent: sessions start their own). */
  readonly standby?: McpStandby;
  /** Whether each workspace gets its own filesystem image, making diskMb a hard limit (absent: the watchdog enforces it). */
  readonly diskImages?: boolean;
}

/** The environment of a worker's MCP server: the gate state it resumes from. */
function mcpSessionEnv(worker: Worker): string[] {
  return worker.gate === undefined ? [] : [`${GATE_VAR}=${JSON.stringify(worker.gate)}`];
}

/** Whether a planned worker fits the pool's containers: default policy, limits, image and runtime, no env, one object store. */
function isPoolable(worker: Worker, defaultImage: string, poolRuntime: string): boolean {
  return (
    JSON.stringify(worker.permissions) === JSON.stringify(defaultPolicy()) &&
    JSON.stringify(worker.resources) === JSON.stringify(resolveResources(undefined)) &&
    worker.image === defaultImage &&
    worker.runtime === poolRuntime &&
    Object.keys(worker.env).length === 0 &&
    worker.objectDirs.length === 1
  );
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
  /** Values of env vars given to workers: redacted from events and logs. */
  private readonly secretValues = new Set<string>();
  /** Names of workers being created right now, so two creations cannot both take one name. */
  private readonly namesInCreation = new Set<string>();
  /** Last tool call or exec per worker, for idle timeouts. */
  private readonly activity = new Map<string, number>();
  private readonly egress: WorkerEgress;
  /** Control channels: exec, diff and the like without a docker exec each. */
  private readonly channels: ToolsChannels;

  constructor(private readonly deps: WorkerManagerDeps) {
    this.channels = new ToolsChannels(deps.driver);
    this.egress = new WorkerEgress({
      driver: deps.driver,
      socketPath: (id) => path.join(this.runDir(id), PROXY_SOCKET_NAME),
      recordAudit: (id, entries) => this.recordAudit(id, entries, "host"),
    });
  }

  /** Registers a listener for workers going down; returns the unsubscribe function. */
  onWorkerDown(listener: WorkerDownListener): () => void {
    this.downListeners.add(listener);
    return () => this.downListeners.delete(listener);
  }

  /** Values that must never appear in events or logs (env values given to workers). */
  secrets(): string[] {
    return [...this.secretValues];
  }

  /** Matches stored workers with labelled containers after a restart. */
  async reconcile(): Promise<void> {
    await reconcileWorkers(this.deps.store, this.deps.driver, { [LABEL_INSTANCE]: this.deps.instance });
    await releaseOrphanImages(this.deps.config.dataDir, new Set((await this.deps.store.listWorkers()).map((worker) => worker.id)));
    for (const worker of await this.deps.store.listWorkers()) {
      for (const value of Object.values(worker.env)) this.secretValues.add(value);
      this.egress.setPolicy(worker.id, worker.permissions);
      await writePolicyFile(this.runDir(worker.id), worker.permissions, worker.approvals).catch(() => undefined);
      // After a reboot the image is there but not mounted; a container must never get the bare directory.
      if (worker.diskEnforcement === "image") {
        await mountDiskImage(worker.workspace).catch((error: unknown) => this.deps.events.append(worker.id, "workspace_mount_failed", { reason: error instanceof Error ? error.message : String(error) }));
      }
      if (worker.desired === "running" && usesEgressProxy(worker.permissions)) await this.egress.ensure(worker.id);
    }
  }

  async create(input: CreateWorkerInput): Promise<Worker> {
    if (input.name !== undefined) await this.claimName(input.name);
    try {
      return await this.createClaimed(input);
    } finally {
      if (input.name !== undefined) this.namesInCreation.delete(input.name);
    }
  }

  /** Refuses a name another worker has, or is being created with: a name must find one worker. */
  private async claimName(name: string): Promise<void> {
    const holder = this.namesInCreation.has(name) ? "being created" : (await this.deps.store.listWorkers()).find((worker) => worker.name === name)?.id;
    if (holder !== undefined) {
      throw new AppError("conflict", `name: a worker named "${name}" exists already (${holder}). Choose another name, or remove that worker first.`, {
        details: { field: "name", worker: holder },
      });
    }
    this.namesInCreation.add(name);
  }

  private async createClaimed(input: CreateWorkerInput): Promise<Worker> {
    const { worker, secrets, runtimeNote } = await planWorker(input, {
      dataDir: this.deps.config.dataDir,
      hostEnv: this.deps.hostEnv,
      runtimes: this.deps.runtimes,
      configuredRuntime: this.deps.config.runtime,
      defaultImage: this.deps.defaultImage,
      diskEnforcement: this.deps.diskImages === true ? "image" : "watchdog",
      newId: () => this.newId(),
      workspaceOf: (id) => path.join(this.workerDir(id), "workspace"),
    });
    for (const value of secrets) this.secretValues.add(value);
    const { id } = worker;
    const slot = this.deps.pools !== undefined && isPoolable(worker, this.deps.defaultImage, this.deps.pools.runtime) ? await this.deps.pools.claim(worker.repo) : undefined;
    if (slot !== undefined) {
      const claimed = await this.lock.run(id, () => this.claimSlot(worker, slot)).catch(async (error: unknown) => {
        this.deps.events.append(id, "pool_claim_failed", { reason: error instanceof Error ? error.message : String(error) }).catch(() => undefined);
        return undefined;
      });
      if (claimed !== undefined) return claimed;
    }
    return this.lock.run(id, async () => {
      if (input.image !== undefined && !(await this.deps.driver.imageExists(input.image))) {
        throw new AppError("invalid_input", `image: "${input.image}" does not exist on the Docker engine. Build or pull it first, or omit image to use the sandbox image.`, { details: { field: "image" } });
      }
      try {
        await pinBase(worker.repo, id, worker.baseCommit);
        if (worker.diskEnforcement === "image") await createDiskImage(worker.workspace, worker.resources.diskMb);
        else await mkdir(worker.workspace, { recursive: true });
        await this.deps.store.putWorker(worker);
        // The container (and the MCP server started with it) comes up while the workspace is
        // cloned into its mounted directory: nothing in it reads the workspace before the 201.
        const [launched, cloned] = await Promise.allSettled([
          this.launch(worker),
          (async () => {
            await createSharedClone(worker.repo, worker.workspace, worker.branch, worker.baseCommit);
            if (this.deps.chownWorkspaces) await chownTree(worker.workspace, this.deps.sandboxUser.uid, this.deps.sandboxUser.gid);
          })(),
        ]);
        if (cloned.status === "rejected") throw cloned.reason;
        if (launched.status === "rejected") throw launched.reason;
        const running = launched.value;
        await this.deps.events.append(id, "created", { branch: worker.branch, baseCommit: worker.baseCommit, runtime: worker.runtime, ...(runtimeNote === undefined ? {} : { runtimeNote }) });
        return running;
      } catch (error) {
        await this.discard(worker);
        throw error;
      }
    });
  }

  async list(): Promise<Worker[]> {
    const workers = await this.deps.store.listWorkers();
    // Each worker is read again under its lock: a copy read before the lock may be stale,
    // and saving it back would undo what the lock holder just wrote. A worker whose lock is
    // held answers from stored state: list never waits behind a stuck operation.
    const refreshed = await Promise.all(workers.map((worker) => this.refreshOrStored(worker.id)));
    return refreshed.filter((worker): worker is Worker => worker !== undefined).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async get(id: string): Promise<Worker> {
    return (await this.refreshOrStored(id)) ?? this.load(id);
  }

  async stop(id: string): Promise<Worker> {
    await this.preempt(id, "the worker is being stopped", "stop");
    return this.lock.run(id, async () => {
      const stopped = await this.halt(await this.load(id), {});
      await this.deps.events.append(id, "stopped");
      return stopped;
    });
  }

  /** Stops a worker the watchdog found over a limit, recording the reason on the worker and in its events. */
  async stopForLimit(id: string, reason: string): Promise<void> {
    await this.preempt(id, `the worker is being stopped: ${reason}`, "stop");
    await this.lock.run(id, async () => {
      const worker = await this.load(id);
      if (worker.desired !== "running") return;
      await this.halt(worker, { stopReason: reason });
      await this.deps.events.append(id, "stopped_by_limit", { reason });
    });
  }

  /** Notes a tool call or exec (for idleTimeoutMs). */
  touch(id: string): void {
    this.activity.set(id, Date.now());
  }

  /** When the worker last had a tool call or exec (its start if none since). */
  lastActivity(id: string): number {
    return this.activity.get(id) ?? Date.now();
  }

  async start(id: string): Promise<Worker> {
    return this.lock.run(id, async () => {
      const worker = await this.load(id);
      if (worker.diskEnforcement === "image") await mountDiskImage(worker.workspace);
      const exists = await stat(worker.workspace).then((s) => s.isDirectory(), () => false);
      if (!exists) throw new AppError("conflict", `The workspace of worker ${id} is gone (${worker.workspace}); it cannot be started. Remove the worker and create a new one.`);
      const started = await this.launch({ ...worker, desired: "running" });
      await this.deps.events.append(id, "started");
      return started;
    });
  }

  async remove(id: string, options: { keepWorkspace: boolean }): Promise<RemoveResult> {
    await this.preempt(id, "the worker is being removed", "remove");
    return this.lock.run(id, async () => {
      const worker = await this.load(id);
      this.emitDown(id);
      if (worker.containerId !== undefined) {
        this.deps.standby?.drop(worker.containerId);
        await this.deps.driver.remove(worker.containerId);
      }
      await this.egress.forget(id);
      await unpinBase(worker.repo, id);
      await this.deps.events.append(id, "removed", { keepWorkspace: options.keepWorkspace });
      // The event log stays: the audit trail outlives the worker.
      await disposeWorkspace(worker.workspace, { keep: options.keepWorkspace });
      await rm(this.runDir(id), { recursive: true, force: true });
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
    const env = mcpSessionEnv(worker);
    return (await this.deps.standby?.take(containerId, env)) ?? this.deps.driver.attach(containerId, mcpServerArgv(), { ...TOOLS_EXEC, env });
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
        await this.deps.events.append(id, `task_${gate.task.status}`, { summary: gate.task.summary, reason: gate.task.reason });
      }
    });
  }

  /**
   * Starts a new task on a worker whose task ended: its finish gate starts fresh (nothing
   * validated, no failures, no outcome) and its MCP sessions end, so that none still holding
   * the old outcome can report it again. The previous outcome stays in the events.
   */
  async startNewTask(id: string): Promise<Worker> {
    return this.lock.run(id, async () => {
      const worker = await this.load(id);
      const previous = worker.gate?.task ?? null;
      if (previous === null) {
        throw new AppError("conflict", `Worker ${id}'s task has not ended: finish it (or let it fail) before starting another, so its failure count cannot be wiped.`, {
          details: { reason: "task_open" },
        });
      }
      const saved = await this.save(await refreshStatus(this.deps.driver, { ...worker, gate: { validatedTree: null, failures: 0, task: null } }));
      await this.deps.events.append(id, "task_started", { previous: previous.status });
      this.emitDown(id);
      return saved;
    });
  }

  async exec(id: string, request: ExecRequest): Promise<ExecResponse> {
    const { worker, containerId } = await this.requireRunning(id);
    this.touch(id);
    return execInWorker(this.operations(), worker, containerId, request);
  }

  /** Opens an interactive shell in a running worker, checked and recorded line by line (see interactive-shell.ts). */
  async openShell(id: string, terminal: ShellTerminal): Promise<InteractiveShell> {
    const { worker, containerId } = await this.requireRunning(id);
    this.touch(id);
    return openInteractiveShell(this.operations(), worker, containerId, this.deps.sandboxUser, terminal, () => this.touch(id));
  }

  async diff(id: string): Promise<DiffResult> {
    const { worker, containerId } = await this.requireRunning(id);
    return diffWorker(this.operations(), worker, containerId);
  }

  async export(id: string, branch: string | undefined): Promise<ExportResult> {
    const { containerId } = await this.requireRunning(id);
    return this.lock.run(id, async (signal) => {
      const worker = await this.load(id);
      const result = await exportWorker(this.operations(), worker, containerId, branch, signal);
      await this.save({ ...worker, lastExport: { branch: result.branch, commit: result.commit, at: new Date().toISOString() } });
      return result;
    });
  }

  /** The worker's effective policy. */
  async permissions(id: string): Promise<Policy> {
    return (await this.load(id)).permissions;
  }

  /**
   * Replaces the fields of the policy given in `input`. The tools and the egress proxy see
   * the new policy at once; what needs a different container (mounts, network mode) is
   * reported and applies on the next start.
   */
  async updatePermissions(id: string, input: PermissionsInput): Promise<{ permissions: Policy; appliesOnNextStart: boolean }> {
    return this.lock.run(id, async () => {
      const worker = await this.load(id);
      const merged = { ...toPermissionsInput(worker.permissions), ...input };
      const policy = policyFromInput(merged, this.deps.config.dataDir);
      await assertGrantsExist(policy);
      const bindSources = await admitBindSources(policy, this.deps.hostEnv, worker.bindSources);
      const updated = { ...worker, permissions: policy, bindSources };
      // Refuses (before any change) a policy the worker's requested runtime cannot carry.
      const nextStart = this.withRuntime(updated);
      await writePolicyFile(this.runDir(id), policy, worker.approvals);
      this.egress.setPolicy(id, policy);
      const container = worker.containerId === undefined ? undefined : await this.deps.driver.inspect(worker.containerId);
      const wanted = buildContainerSpec(nextStart, await this.specOptions(nextStart));
      const appliesOnNextStart = container !== undefined && container.labels[LABEL_SPEC] !== wanted.labels[LABEL_SPEC];
      if (container?.running && usesEgressProxy(policy)) await this.egress.ensure(id);
      await this.save({ ...updated, pendingRestart: appliesOnNextStart || undefined });
      await this.deps.events.append(id, "permissions_changed", { appliesOnNextStart });
      return { permissions: policy, appliesOnNextStart };
    });
  }

  /** A worker by id or by name; a name two workers share (from before names were unique) is refused, never guessed. */
  async resolve(ref: string): Promise<Worker> {
    const byId = await this.deps.store.getWorker(ref);
    if (byId !== undefined) return this.get(byId.id);
    const named = (await this.deps.store.listWorkers()).filter((worker) => worker.name === ref);
    if (named.length === 0) throw new AppError("not_found", `No worker with id or name "${ref.slice(0, 64)}". list_workers shows them.`);
    if (named.length > 1) {
      const ids = named.map((worker) => worker.id);
      throw new AppError("conflict", `${named.length} workers are named "${ref.slice(0, 64)}" (${ids.join(", ")}). Use the id of the one you mean.`, { details: { workers: ids } });
    }
    return this.get((named[0] as Worker).id);
  }

  /** Sets the model the worker's agent gets in WORKCELL_MODEL. */
  async setModel(id: string, model: string): Promise<Worker> {
    return this.lock.run(id, async () => {
      const saved = await this.save({ ...(await this.load(id)), model });
      await this.deps.events.append(id, "model_changed", { model });
      return saved;
    });
  }

  /** Adds one grant to the worker's policy (a permission prompt approved for the worker's life). */
  async grantPermission(id: string, permission: { kind: string; target: string }): Promise<void> {
    const policy = await this.permissions(id);
    const kind = permission.kind as "read" | "write" | "net" | "run" | "env";
    const current = policy[kind];
    if (current === true) return;
    await this.updatePermissions(id, { [kind]: [...(Array.isArray(current) ? current : []), permission.target] });
  }

  /**
   * Records what audit mode allowed but enforce would refuse (deduplicated). Reports come
   * partly from inside the sandbox, so they count only while the worker is in audit mode,
   * and only entries with valid targets are kept (see acceptAuditEntries).
   */
  async recordAudit(id: string, entries: readonly unknown[], source: AuditSource = "sandbox"): Promise<void> {
    const valid = acceptAuditEntries(entries, source);
    if (valid.length === 0) return;
    await this.lock.run(id, async () => {
      const worker = await this.deps.store.getWorker(id);
      if (worker === undefined || worker.permissions.mode !== "audit") return;
      const known = new Set(worker.audit.map((entry) => `${entry.kind}\0${entry.target}`));
      const fresh = valid.filter((entry) => !known.has(`${entry.kind}\0${entry.target}`));
      if (fresh.length === 0) return;
      await this.save({ ...worker, audit: [...worker.audit, ...fresh].slice(-1000) });
      await this.deps.events.append(id, "audit", { entries: fresh });
    });
  }

  /** The minimal enforce-mode policy that would have let the audited run pass, and the recorded entries it leaves out. */
  async suggestedPermissions(id: string): Promise<{ permissions: Policy; skipped: SkippedEntry[] }> {
    const worker = await this.load(id);
    return suggestPermissions(worker.permissions, worker.audit);
  }

  /** Ends every egress proxy (on shutdown); containers keep running. */
  async close(): Promise<void> {
    await this.channels.closeAll();
    await this.egress.closeAll();
  }

  /**
   * Brings the worker's container up: policy file and egress proxy first, then the
   * container — recreated when it is missing or was made from an older policy (the
   * workspace lives on the host, so nothing is lost).
   */
  private async launch(planned: Worker): Promise<Worker> {
    const { driver } = this.deps;
    const worker = this.withRuntime(planned);
    await writePolicyFile(this.runDir(worker.id), worker.permissions, worker.approvals);
    this.egress.setPolicy(worker.id, worker.permissions);
    if (usesEgressProxy(worker.permissions)) await this.egress.ensure(worker.id);
    const spec = buildContainerSpec(worker, await this.specOptions(worker));
    let containerId = worker.containerId;
    const existing = containerId === undefined ? undefined : await driver.inspect(containerId);
    if (existing !== undefined && existing.labels[LABEL_SPEC] !== spec.labels[LABEL_SPEC]) {
      await driver.remove(existing.id);
      containerId = undefined;
    } else if (existing === undefined) containerId = undefined;
    if (containerId === undefined) {
      // Docker follows symlinks in bind sources: check them right before each create and start.
      await verifyBindSources(worker.id, worker.permissions, worker.bindSources);
      containerId = await driver.create(spec);
      await this.save({ ...worker, containerId });
    }
    await verifyBindSources(worker.id, worker.permissions, worker.bindSources);
    await driver.start(containerId);
    if (usesEgressProxy(worker.permissions)) await this.egress.waitForForwarder(containerId);
    const started: Worker = { ...worker, containerId, status: "running", error: undefined, startedAt: new Date().toISOString() };
    delete started.pendingRestart;
    delete started.stopReason;
    this.touch(worker.id);
    this.deps.standby?.prime(containerId, mcpSessionEnv(started));
    return this.save(started);
  }

  /**
   * The worker with the runtime its next container gets: a requested one is kept (and must
   * still fit the policy, which may have changed); otherwise WORKCELL_RUNTIME or the
   * default rule decides again, so a changed policy or engine is honoured at each start.
   */
  private withRuntime(worker: Worker): Worker {
    const requested = worker.runtimeSource === "requested" || (worker.runtimeSource === undefined && worker.runtime !== undefined) ? worker.runtime : undefined;
    const choice = chooseRuntime({ requested, configured: this.deps.config.runtime, needs: runtimeNeedsOf(worker.permissions), catalog: this.deps.runtimes });
    return { ...worker, runtime: choice.runtime, runtimeSource: choice.source };
  }

  private async specOptions(worker: Worker): Promise<SpecOptions> {
    return {
      instance: this.deps.instance,
      user: this.deps.sandboxUser,
      hostCpus: this.deps.hostCpus,
      runDir: this.runDir(worker.id),
      hidden: await findHiddenPaths(worker.permissions),
    };
  }

  /** Lets permission prompts for network destinations reach the operator's approval queue. */
  setNetPrompter(prompter: NetPrompter): void {
    this.egress.setPrompter(prompter);
  }

  private operations(): OperationContext {
    return {
      driver: this.deps.driver,
      channels: this.channels,
      hostEnv: this.deps.hostEnv,
      dataDir: this.deps.config.dataDir,
      recordAudit: (id, entries, source) => this.recordAudit(id, entries, source),
      admit: async (workerId, signal, leaseMs) => (this.deps.admission === undefined ? () => undefined : this.deps.admission.acquire(workerId, { signal, leaseMs, uncapped: true })),
      addSecrets: (values) => {
        for (const value of values) this.secretValues.add(value);
      },
      event: (id, type, data) => this.deps.events.append(id, type, data),
    };
  }

  /**
   * Turns a warm pool slot into this worker: the slot directory (already mounted in the
   * started container) is renamed to the worker's directory and the workspace materialised
   * in it. On failure everything is undone and the caller starts the worker cold.
   */
  private async claimSlot(worker: Worker, slot: PoolSlot): Promise<Worker> {
    const workerDir = this.workerDir(worker.id);
    const pooled: Worker = { ...worker, objectDirs: [], containerId: slot.containerId };
    try {
      await mkdir(path.dirname(workerDir), { recursive: true, mode: 0o700 });
      // The container's mounts follow the directory, not its name.
      await rename(slot.dir, workerDir);
      const owner = this.deps.chownWorkspaces ? this.deps.sandboxUser : undefined;
      if (slot.checkout !== undefined) {
        // Cloned ahead of time: only the branch (and, if the repository moved on, the commit)
        // changes. A slot at the wanted commit fetches nothing, so the pin is written meanwhile;
        // otherwise the commit is fetched by the pin.
        const target = { repo: worker.repo, branch: worker.branch, baseCommit: worker.baseCommit, baseRef: baseRefName(worker.id) };
        const current = slot.checkout.commit === worker.baseCommit;
        if (!current) await pinBase(worker.repo, worker.id, worker.baseCommit);
        const [pinned, adopted] = await Promise.allSettled([current ? pinBase(worker.repo, worker.id, worker.baseCommit) : undefined, adoptPooledCheckout(worker.workspace, slot.checkout, target, owner)]);
        if (pinned.status === "rejected") throw pinned.reason;
        if (adopted.status === "rejected") throw adopted.reason;
      } else {
        await pinBase(worker.repo, worker.id, worker.baseCommit);
        await createStandaloneClone(worker.repo, worker.workspace, worker.branch, worker.baseCommit);
        // The slot was the control plane's until now (see WorkerPool); hand it to the sandbox user.
        if (owner !== undefined) await chownTree(worker.workspace, owner.uid, owner.gid);
      }
      await writePolicyFile(this.runDir(worker.id), worker.permissions, worker.approvals);
      this.egress.setPolicy(worker.id, worker.permissions);
      this.touch(worker.id);
      const running = await this.save({ ...pooled, status: "running", startedAt: new Date().toISOString() });
      await this.deps.events.append(worker.id, "created", { branch: worker.branch, baseCommit: worker.baseCommit, runtime: worker.runtime, pooled: true });
      return running;
    } catch (error) {
      await this.deps.driver.remove(slot.containerId).catch(() => undefined);
      await unmountWorkspace(worker.workspace).catch(() => undefined);
      await unmountWorkspace(path.join(slot.dir, "workspace")).catch(() => undefined);
      await rm(workerDir, { recursive: true, force: true });
      await rm(slot.dir, { recursive: true, force: true });
      await unpinBase(worker.repo, worker.id).catch(() => undefined);
      await this.deps.store.deleteWorker(worker.id);
      throw error;
    }
  }

  /** Ends the worker's sessions, container and proxy, and records it as stopped on purpose. Call under the lock. */
  private async halt(worker: Worker, extra: Partial<Worker>): Promise<Worker> {
    this.emitDown(worker.id);
    if (worker.containerId !== undefined) {
      this.deps.standby?.drop(worker.containerId);
      await this.deps.driver.stop(worker.containerId, STOP_TIMEOUT_S);
    }
    await this.egress.close(worker.id);
    return this.save({ ...worker, ...extra, desired: "stopped", status: "stopped", error: undefined });
  }

  /** Undoes a half-made creation; every step tolerates what was never done. */
  private async discard(worker: Worker): Promise<void> {
    const stored = await this.deps.store.getWorker(worker.id);
    const containerId = stored?.containerId ?? worker.containerId;
    if (containerId !== undefined) await this.deps.driver.remove(containerId).catch(() => undefined);
    await this.egress.forget(worker.id).catch(() => undefined);
    await unpinBase(worker.repo, worker.id).catch(() => undefined);
    await unmountWorkspace(worker.workspace).catch(() => undefined);
    await rm(this.workerDir(worker.id), { recursive: true, force: true });
    await this.deps.store.deleteWorker(worker.id);
  }

  /**
   * The worker refreshed from the engine under its lock once the lock is free, or as stored
   * if it stays held for READ_WAIT_MS: readers never wait long behind a stuck operation.
   * Undefined when there is no such worker.
   */
  private async refreshOrStored(id: string): Promise<Worker | undefined> {
    const waited = AbortSignal.timeout(READ_WAIT_MS);
    for (;;) {
      const refreshed = this.lock.runIfIdle(id, async () => {
        const current = await this.deps.store.getWorker(id);
        return current === undefined ? undefined : this.refresh(current);
      });
      if (refreshed !== undefined) return refreshed;
      const idle = await raceAbort(this.lock.whenIdle(id), waited).then(() => true, () => false);
      if (!idle) return this.deps.store.getWorker(id);
    }
  }

  /**
   * Ends whatever holds or waits for the worker's lock: aborts the operations and, when there
   * were any, stops or removes the container so nothing inside it keeps them waiting. The
   * workspace is untouched. The caller then takes the lock as usual.
   */
  private async preempt(id: string, reason: string, how: "stop" | "remove"): Promise<void> {
    if (!this.lock.preempt(id, reason)) return;
    const containerId = (await this.deps.store.getWorker(id))?.containerId;
    if (containerId === undefined) return;
    if (how === "stop") await this.deps.driver.stop(containerId, STOP_TIMEOUT_S);
    else await this.deps.driver.remove(containerId);
  }

  private async refresh(worker: Worker): Promise<Worker> {
    const refreshed = await refreshStatus(this.deps.driver, worker, STATUS_INSPECT_DEADLINE_MS);
    if (refreshed === worker) return worker;
    if (refreshed.status !== worker.status) {
      await this.deps.events.append(worker.id, "status_changed", { from: worker.status, to: refreshed.status, error: refreshed.error });
    }
    return this.save(refreshed);
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

  /** The worker's control dir, mounted read-only at /run/workcell: policy file and proxy socket. */
  private runDir(id: string): string {
    return path.join(this.workerDir(id), "run");
  }

  private async newId(): Promise<string> {
    for (;;) {
      const id = randomBytes(4).toString("hex");
      if ((await this.deps.store.getWorker(id)) === undefined) return id;
    }
  }
}
