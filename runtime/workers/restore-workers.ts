import type { ContainerDriver } from "../docker/container-driver.js";
import { LABEL_INSTANCE, usesEgressProxy } from "../docker/container-spec.js";
import { mountDiskImage, releaseOrphanImages } from "../workspace/disk-image.js";
import type { WorkerEgress } from "./worker-egress.js";
import { writePolicyFile } from "./worker-policy.js";
import type { WorkerRecords } from "./worker-records.js";
import { reconcileWorkers } from "./worker-status.js";

/** What restoring the workers after a restart needs. */
export interface RestoreDeps {
  readonly records: WorkerRecords;
  readonly driver: ContainerDriver;
  readonly egress: WorkerEgress;
  /** Identifies this control plane's containers. */
  readonly instance: string;
  readonly dataDir: string;
}

/**
 * Brings a restarted control plane back to its workers: stored workers are matched with
 * their labelled containers, and each gets back what lives only in memory or on a mount
 * (its secrets to redact, its egress policy and proxy, its policy file, its disk image).
 */
export async function restoreWorkers(deps: RestoreDeps): Promise<void> {
  const { records, driver, egress } = deps;
  await reconcileWorkers(records.store, driver, { [LABEL_INSTANCE]: deps.instance }, records.clock);
  const workers = await records.store.listWorkers();
  await releaseOrphanImages(deps.dataDir, new Set(workers.map((worker) => worker.id)));
  for (const worker of workers) {
    records.addSecrets(Object.values(worker.env));
    egress.setPolicy(worker.id, worker.permissions);
    await writePolicyFile(records.runDir(worker.id), worker.permissions, worker.approvals).catch(() => undefined);
    // After a reboot the image is there but not mounted; a container must never get the bare directory.
    if (worker.diskEnforcement === "image") {
      await mountDiskImage(worker.workspace).catch((error: unknown) =>
        records.event(worker.id, "workspace_mount_failed", {
          reason: error instanceof Error ? error.message : String(error),
        }),
      );
    }
    if (worker.desired === "running" && usesEgressProxy(worker.permissions)) await egress.ensure(worker.id);
  }
}
