import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { approvalDefaults } from "../approvals/approval.js";
import type { ContainerDriver } from "../docker/container-driver.js";
import { buildContainerSpec, LABEL_INSTANCE, resolveResources } from "../docker/container-spec.js";
import { defaultPolicy } from "../permissions/policy.js";
import type { McpStandby } from "./mcp-standby.js";
import type { Worker } from "./worker.js";
import { writePolicyFile } from "./worker-policy.js";
import { createDiskImage, unmountWorkspace } from "../workspace/disk-image.js";
import { chownTree, createStandaloneClone, type PooledCheckout } from "../workspace/shared-clone.js";
import { inspectSourceRepo, pinBase, unpinBase } from "../git/source-repo.js";
import { z } from "zod";
import { workerBranch, type WorkerIds } from "./worker-ids.js";

/** How long after a claim the pool starts preparing replacements. */
export const REFILL_DELAY_MS = 1_000;

/** Marks warm-pool containers (in addition to the instance label). */
export const LABEL_POOL = "dev.workcell.pool";

/** A started container waiting for a worker, with its empty workspace and control dir mounted. */
export interface PoolSlot {
  readonly id: string;
  readonly containerId: string;
  /** The slot's directory: `workspace/` and `run/` inside it are what the container mounts. */
  readonly dir: string;
  /** A repository pool's slot: the clone already in its workspace. */
  readonly checkout?: PooledCheckout;
}

/** What the pool needs to build containers like a default worker's. */
export interface PoolDeps {
  /** Slots kept ready (see WorkerPool.resize). */
  readonly size: number;
  readonly driver: ContainerDriver;
  readonly dataDir: string;
  readonly instance: string;
  readonly image: string;
  /** The runtime a default-policy worker gets (runsc when the engine offers it); claims match on it. */
  readonly runtime: string;
  readonly user: { uid: number; gid: number };
  readonly hostCpus: number;
  readonly log: (message: string) => void;
  /** Whether slots get a filesystem image of the default diskMb, as cold workers do (absent: no). */
  readonly diskImages?: boolean;
  /** Starts each slot's MCP server ahead of its first session (absent: the session starts it). */
  readonly standby?: McpStandby;
  /** A repository pool: each slot's workspace is cloned from it ahead of time (absent: slots stay empty). */
  readonly repo?: string;
  /** Who a cloned workspace is handed to (absent: the control plane is the sandbox user). */
  readonly owner?: { uid: number; gid: number };
  /** Where a repository pool's slots get the ids of their future workers. */
  readonly ids: WorkerIds;
}

/**
 * A repository pool's record in its slot directory, written before the slot pins a commit in
 * the source repository, so a restart can drop the pin of a slot nobody claimed.
 */
export const SLOT_RECORD = "slot.json";
const SlotRecordSchema = z.object({ repo: z.string().min(1), workerId: z.string().regex(/^[0-9a-f]{8}$/) });
type SlotRecord = z.infer<typeof SlotRecordSchema>;

/**
 * Removes what a previous run left: pool containers no worker claimed (`claimed` are the
 * container ids workers own) and every slot directory. Call once, before any pool fills.
 */
export async function clearPoolLeftovers(
  driver: ContainerDriver,
  instance: string,
  dataDir: string,
  claimed: ReadonlySet<string>,
): Promise<void> {
  const leftovers = await driver.list({ [LABEL_INSTANCE]: instance, [LABEL_POOL]: "true" });
  for (const container of leftovers) if (!claimed.has(container.id)) await driver.remove(container.id);
  const poolDir = path.join(dataDir, "pool");
  for (const slot of await readdir(poolDir).catch(() => [])) {
    await unmountWorkspace(path.join(poolDir, slot, "workspace"));
    const pinned = await readSlotRecord(path.join(poolDir, slot));
    if (pinned !== undefined) await unpinBase(pinned.repo, pinned.workerId).catch(() => undefined);
  }
  await rm(poolDir, { recursive: true, force: true });
}

/** A slot's record, or undefined when it has none (an empty slot) or it cannot be read. */
async function readSlotRecord(dir: string): Promise<SlotRecord | undefined> {
  try {
    const parsed = SlotRecordSchema.safeParse(JSON.parse(await readFile(path.join(dir, SLOT_RECORD), "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The warm pool: `size` containers created and started ahead of time with the default
 * hardening, policy and limits, each bound to an empty slot directory that becomes a
 * worker's workspace on claim (Docker cannot add a mount to a running container). Refills
 * in the background, never holds more than `size`, and removes its containers on close.
 */
export class WorkerPool {
  private readonly ready: PoolSlot[] = [];
  private readonly inflight = new Set<Promise<void>>();
  private closed = false;
  private size: number;
  private refillTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: PoolDeps) {
    this.size = deps.size;
  }

  /** Keeps `size` slots from now on: surplus ready slots are removed, missing ones prepared. */
  async resize(size: number): Promise<void> {
    this.size = size;
    const surplus = this.ready.splice(size);
    for (const slot of surplus) await this.discard(slot);
    this.refill();
  }

  /** How many slots the pool keeps. */
  get capacity(): number {
    return this.size;
  }

  /** Starts filling the pool (after clearPoolLeftovers). */
  fill(): void {
    this.refill();
  }

  /** The repository whose clones the slots hold (undefined: empty slots). */
  get repo(): string | undefined {
    return this.deps.repo;
  }

  /** A ready slot, or undefined when the pool is empty (the caller starts cold). */
  claim(): PoolSlot | undefined {
    const slot = this.ready.shift();
    this.refillSoon();
    return slot;
  }

  /** The ready slots' containers (for status and tests). */
  readyContainers(): string[] {
    return this.ready.map((slot) => slot.containerId);
  }

  /** Ready slots (for status and tests). */
  get available(): number {
    return this.ready.length;
  }

  /** Waits until the pool holds `count` ready slots (or `timeoutMs` passes). */
  async waitReady(count: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.ready.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return this.ready.length >= count;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refillTimer);
    // Containers still being prepared are discarded as they finish; wait for them.
    await Promise.all([...this.inflight]);
    const slots = this.ready.splice(0);
    for (const slot of slots) await this.discard(slot);
  }

  /**
   * Refills REFILL_DELAY_MS after a claim: preparing a replacement (an image, a clone, a
   * container) takes both cores for a while, and the claimed worker's first calls come first.
   * Claims in a burst share one timer.
   */
  private refillSoon(): void {
    if (this.refillTimer !== undefined || this.closed) return;
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined;
      this.refill();
    }, REFILL_DELAY_MS);
    this.refillTimer.unref();
  }

  private refill(): void {
    while (!this.closed && this.ready.length + this.inflight.size < this.size) {
      const preparing: Promise<void> = this.createSlot()
        .then(async (slot) => {
          if (this.closed || this.ready.length >= this.size) await this.discard(slot);
          else this.ready.push(slot);
        })
        .catch((error: unknown) =>
          this.deps.log(
            `warm pool: could not prepare a container: ${error instanceof Error ? error.message : String(error)}`,
          ),
        )
        .finally(() => this.inflight.delete(preparing));
      this.inflight.add(preparing);
    }
  }

  private async createSlot(): Promise<PoolSlot> {
    const id = `pool${randomBytes(4).toString("hex")}`;
    const dir = path.join(this.deps.dataDir, "pool", id);
    const workspace = path.join(dir, "workspace");
    // Owned by the control plane (mode 0700) until claimed: nothing in the waiting container
    // can write there, so the host may clone into it; the claim hands it to the sandbox user.
    // The image is mounted before the container exists, so the container's bind mount is the
    // image; renaming the slot to the worker's directory on claim moves the mount with it.
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (this.deps.diskImages === true) await createDiskImage(workspace, resolveResources(undefined).diskMb);
    else await mkdir(workspace, { mode: 0o700 });
    try {
      // The clone goes into the mounted directory while the container starts: nothing in it
      // reads the workspace before a claim.
      const [started, cloned] = await Promise.allSettled([
        this.startSlot(id, dir, workspace),
        this.cloneInto(dir, workspace),
      ]);
      if (started.status === "rejected") {
        if (cloned.status === "fulfilled" && cloned.value !== undefined) await this.release(cloned.value);
        throw started.reason;
      }
      if (cloned.status === "rejected") {
        // The directory is removed below, with the image; only the container is this branch's to end.
        this.deps.standby?.drop(started.value.containerId);
        await this.deps.driver.remove(started.value.containerId).catch(() => undefined);
        throw cloned.reason;
      }
      return cloned.value === undefined ? started.value : { ...started.value, checkout: cloned.value };
    } catch (error) {
      await unmountWorkspace(workspace).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * A repository pool's clone in slot directory `dir`, checked out on the branch of the worker
   * that will claim it, whose id the slot sets aside now, with its commit pinned under that
   * id: a claim at the same commit then runs no git at all. Handed to the owner.
   */
  private async cloneInto(dir: string, workspace: string): Promise<PooledCheckout | undefined> {
    const { repo, ids } = this.deps;
    if (repo === undefined) return undefined;
    const source = await inspectSourceRepo(repo, "HEAD");
    const workerId = await ids.reserve();
    const checkout: PooledCheckout = {
      repo: source.path,
      commit: source.baseCommit,
      branch: workerBranch(workerId, undefined),
      workerId,
    };
    try {
      const record: SlotRecord = { repo: checkout.repo, workerId };
      await writeFile(path.join(dir, SLOT_RECORD), JSON.stringify(record), { mode: 0o600 });
      await pinBase(checkout.repo, workerId, checkout.commit);
      await createStandaloneClone(checkout.repo, workspace, checkout.branch, checkout.commit);
      if (this.deps.owner !== undefined) await chownTree(workspace, this.deps.owner.uid, this.deps.owner.gid);
    } catch (error) {
      await this.release(checkout);
      throw error;
    }
    return checkout;
  }

  /** Gives up what a slot's checkout holds: its pin in the source repository and its worker's id. */
  private async release(checkout: PooledCheckout): Promise<void> {
    await unpinBase(checkout.repo, checkout.workerId).catch(() => undefined);
    this.deps.ids.release(checkout.workerId);
  }

  private async startSlot(id: string, dir: string, workspace: string): Promise<PoolSlot> {
    const policy = defaultPolicy();
    await writePolicyFile(path.join(dir, "run"), policy, approvalDefaults());
    const now = new Date().toISOString();
    const placeholder: Worker = {
      id,
      name: id,
      status: "starting",
      repo: "",
      branch: "",
      baseRef: "",
      baseCommit: "",
      workspace,
      image: this.deps.image,
      runtime: this.deps.runtime,
      runtimeSource: "default",
      permissions: policy,
      approvals: approvalDefaults(),
      audit: [],
      resources: resolveResources(undefined),
      createdAt: now,
      updatedAt: now,
      desired: "running",
      env: {},
      objectDirs: [],
    };
    const spec = buildContainerSpec(placeholder, {
      instance: this.deps.instance,
      user: this.deps.user,
      hostCpus: this.deps.hostCpus,
      runDir: path.join(dir, "run"),
      hidden: [],
    });
    const containerId = await this.deps.driver.create({
      ...spec,
      name: `workcell-${id}`,
      labels: { ...spec.labels, [LABEL_POOL]: "true" },
    });
    await this.deps.driver.start(containerId);
    // A claimed worker has no gate state yet: its first session gets exactly this server.
    this.deps.standby?.prime({ containerId, runDir: path.join(dir, "run"), runtime: this.deps.runtime }, []);
    return { id, containerId, dir };
  }

  private async discard(slot: PoolSlot): Promise<void> {
    this.deps.standby?.drop(slot.containerId);
    if (slot.checkout !== undefined) await this.release(slot.checkout);
    await this.deps.driver.remove(slot.containerId).catch(() => undefined);
    await unmountWorkspace(path.join(slot.dir, "workspace")).catch(() => undefined);
    await rm(slot.dir, { recursive: true, force: true });
  }
}
