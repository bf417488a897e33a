import type { Config } from "../../runtime/config/config.js";
import { probeDiskImages, type DiskImageSupport } from "../../runtime/workspace/disk-image.js";
import type { Logger } from "../logger.js";

/**
 * Whether workspaces get hard disk limits (each its own ext4 image), unless
 * WORKCELL_DISK_QUOTA=watchdog opts out; says which at start, with what a soft limit risks.
 */
export async function probeWorkspaceDiskLimits(
  config: Pick<Config, "dataDir" | "diskQuota" | "watchdogIntervalMs">,
  logger: Logger,
): Promise<DiskImageSupport> {
  const disk =
    config.diskQuota === "watchdog"
      ? { available: false as const, reason: "WORKCELL_DISK_QUOTA=watchdog" }
      : await probeDiskImages(config.dataDir);
  if (disk.available)
    logger.info(
      "workspace disk limits are hard: each workspace is its own ext4 image of resources.diskMb (writes past it fail with ENOSPC)",
    );
  else
    logger.warn(
      `workspace disk limits are NOT hard: ${disk.reason}. New workers get a plain directory; the watchdog measures it every ${config.watchdogIntervalMs} ms and stops a worker over resources.diskMb, so a fast write can still fill the host disk first. Run the control plane as root with loop devices for hard limits.`,
    );
  return disk;
}
