import { execa } from "execa";
import { systemClock, type Clock } from "../clock/clock.js";
import { measureDiskImage } from "../workspace/disk-image.js";
import type { DiskUsage } from "../workspace/disk-image-plan.js";
import { limitExceeded } from "./resource-limits.js";
import type { Workers } from "./workers.js";
import type { Worker } from "./worker.js";

const DU_TIMEOUT_MS = 30_000;

/** Workspace disk use in KiB (what the blocks take), or undefined when it cannot be measured. */
export async function measureDiskKb(directory: string): Promise<number | undefined> {
  const result = await execa("du", ["-sk", directory], { reject: false, timeout: DU_TIMEOUT_MS });
  const kb = Number.parseInt(String(result.stdout).split(/\s/)[0] ?? "", 10);
  return Number.isFinite(kb) ? kb : undefined;
}

/** Appends an event to a worker's audit trail. */
export type EventSink = (workerId: string, type: string, data: Record<string, unknown>) => Promise<unknown>;

/**
 * Checks running workers at an interval. Lifetime and idleness limits stop a worker. Disk:
 * a workspace with its own image is hard-limited by the kernel, so the watchdog only
 * reports (a `disk_usage` event when it becomes nearly full, full, or fine again); a plain
 * workspace (no image support on this host) is measured with du and its worker stopped
 * once over diskMb. One check at a time; a failed check is logged, not fatal.
 */
export class ResourceWatchdog {
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  /** Last reported disk level per worker (absent: ok). */
  private readonly diskLevels = new Map<string, DiskUsage["level"]>();

  constructor(
    private readonly workers: Pick<Workers, "lookup" | "lifecycle" | "activity">,
    private readonly intervalMs: number,
    private readonly log: (message: string) => void,
    private readonly event: EventSink = async () => undefined,
    private readonly clock: Clock = systemClock,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  /** One pass over the running workers. */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      for (const worker of await this.workers.lookup.list()) {
        if (worker.status !== "running") continue;
        const hardLimit = worker.diskEnforcement === "image";
        if (hardLimit) await this.reportDisk(worker);
        const reason = limitExceeded(worker, {
          nowMs: this.clock.now(),
          diskKb: hardLimit ? undefined : await measureDiskKb(worker.workspace),
          lastActivityMs: this.workers.activity.lastActivity(worker.id),
        });
        if (reason !== undefined) await this.workers.lifecycle.stopForLimit(worker.id, reason);
      }
    } catch (error) {
      this.log(`resource watchdog: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.checking = false;
    }
  }

  private async reportDisk(worker: Worker): Promise<void> {
    const usage = await measureDiskImage(worker.workspace);
    if (usage === undefined) return;
    if ((this.diskLevels.get(worker.id) ?? "ok") === usage.level) return;
    this.diskLevels.set(worker.id, usage.level);
    await this.event(worker.id, "disk_usage", { ...usage, limitMb: worker.resources.diskMb });
    if (usage.level === "full")
      this.log(
        `worker ${worker.id}: its workspace is full (${usage.usedMb} of ${usage.sizeMb} MB, ${usage.inodesUsed} of ${usage.inodesTotal} inodes); writes there fail with ENOSPC`,
      );
  }
}
