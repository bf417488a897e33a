import { execa } from "execa";
import { limitExceeded } from "./resource-limits.js";
import type { WorkerManager } from "./worker-manager.js";

const DU_TIMEOUT_MS = 30_000;

/** Workspace disk use in KiB (what the blocks take), or undefined when it cannot be measured. */
export async function measureDiskKb(directory: string): Promise<number | undefined> {
  const result = await execa("du", ["-sk", directory], { reject: false, timeout: DU_TIMEOUT_MS });
  const kb = Number.parseInt(String(result.stdout).split(/\s/)[0] ?? "", 10);
  return Number.isFinite(kb) ? kb : undefined;
}

/**
 * Checks running workers at an interval and stops the ones over their disk, lifetime or
 * idleness limit, recording why. One check at a time; a failed check is logged, not fatal.
 */
export class ResourceWatchdog {
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(
    private readonly manager: WorkerManager,
    private readonly intervalMs: number,
    private readonly log: (message: string) => void,
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
      for (const worker of await this.manager.list()) {
        if (worker.status !== "running") continue;
        const reason = limitExceeded(worker, {
          nowMs: Date.now(),
          diskKb: await measureDiskKb(worker.workspace),
          lastActivityMs: this.manager.lastActivity(worker.id),
        });
        if (reason !== undefined) await this.manager.stopForLimit(worker.id, reason);
      }
    } catch (error) {
      this.log(`resource watchdog: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.checking = false;
    }
  }
}
