import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { isoNow } from "../clock/clock.js";
import type { ContainerDriver } from "../docker/container-driver.js";
import { resolveResources } from "../docker/container-spec.js";
import { baseRefName, pinBase, unpinBase } from "../git/source-repo.js";
import { defaultPolicy } from "../permissions/policy.js";
import { unmountWorkspace } from "../workspace/disk-image.js";
import { adoptPooledCheckout, chownTree, createStandaloneClone } from "../workspace/shared-clone.js";
import type { WorkerEgress } from "./worker-egress.js";
import { SLOT_RECORD, type PoolSlot } from "./worker-pool.js";
import { writePolicyFile } from "./worker-policy.js";
import type { WorkerRecords } from "./worker-records.js";
import type { Worker } from "./worker.js";

/** What claiming a pool slot needs. */
export interface PoolClaimDeps {
  readonly records: WorkerRecords;
  readonly driver: ContainerDriver;
  readonly egress: WorkerEgress;
  /** Who the workspace is handed to, when the control plane runs as another uid. */
  readonly owner: { uid: number; gid: number } | undefined;
}

/** Whether a planned worker fits the pool's containers: default policy, limits, image and runtime, no env, one object store. */
export function isPoolable(worker: Worker, defaultImage: string, poolRuntime: string): boolean {
  return (
    JSON.stringify(worker.permissions) === JSON.stringify(defaultPolicy()) &&
    JSON.stringify(worker.resources) === JSON.stringify(resolveResources(undefined)) &&
    worker.image === defaultImage &&
    worker.runtime === poolRuntime &&
    Object.keys(worker.env).length === 0 &&
    worker.objectDirs.length === 1
  );
}

/**
 * Turns a warm pool slot into this worker: the slot directory (already mounted in the
 * started container) is renamed to the worker's directory and the workspace materialised
 * in it. A repository pool's slot is claimed by the worker whose id it set aside
 * (`worker.id` is `slot.checkout.workerId`). On failure everything is undone and the caller
 * starts the worker cold.
 */
export async function claimPoolSlot(deps: PoolClaimDeps, worker: Worker, slot: PoolSlot): Promise<Worker> {
  const { records, owner } = deps;
  const workerDir = records.workerDir(worker.id);
  const pooled: Worker = { ...worker, objectDirs: [], containerId: slot.containerId };
  try {
    await mkdir(path.dirname(workerDir), { recursive: true, mode: 0o700 });
    // The container's mounts follow the directory, not its name.
    await rename(slot.dir, workerDir);
    if (slot.checkout !== undefined) {
      // Cloned ahead of time, for this worker's id: its commit is pinned under that id and its
      // branch has the default name. Only what differs changes: if the repository moved on, the
      // pin moves to the wanted commit and the workspace fetches it by the pin.
      if (slot.checkout.commit !== worker.baseCommit) await pinBase(worker.repo, worker.id, worker.baseCommit);
      const target = {
        repo: worker.repo,
        branch: worker.branch,
        baseCommit: worker.baseCommit,
        baseRef: baseRefName(worker.id),
      };
      await adoptPooledCheckout(worker.workspace, slot.checkout, target, owner);
    } else {
      await pinBase(worker.repo, worker.id, worker.baseCommit);
      await createStandaloneClone(worker.repo, worker.workspace, worker.branch, worker.baseCommit);
      // The slot was the control plane's until now (see WorkerPool); hand it to the sandbox user.
      if (owner !== undefined) await chownTree(worker.workspace, owner.uid, owner.gid);
    }
    await writePolicyFile(records.runDir(worker.id), worker.permissions, worker.approvals);
    deps.egress.setPolicy(worker.id, worker.permissions);
    records.touch(worker.id);
    const running = await records.save({ ...pooled, status: "running", startedAt: isoNow(records.clock) });
    await records.event(worker.id, "created", {
      branch: worker.branch,
      baseCommit: worker.baseCommit,
      runtime: worker.runtime,
      pooled: true,
    });
    // Claimed: a restart must not take this worker's pin for a slot's (clearPoolLeftovers).
    await rm(path.join(workerDir, SLOT_RECORD), { force: true }).catch(() => undefined);
    return running;
  } catch (error) {
    await deps.driver.remove(slot.containerId).catch(() => undefined);
    await unmountWorkspace(worker.workspace).catch(() => undefined);
    await unmountWorkspace(path.join(slot.dir, "workspace")).catch(() => undefined);
    await rm(workerDir, { recursive: true, force: true });
    await rm(slot.dir, { recursive: true, force: true });
    await unpinBase(worker.repo, worker.id).catch(() => undefined);
    await records.store.deleteWorker(worker.id);
    throw error;
  }
}
