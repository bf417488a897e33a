import type { Worker } from "./worker.js";

/** What the watchdog measured or knows about one running worker. */
export interface WorkerUsage {
  nowMs: number;
  /** Workspace disk use in KiB, when measured. */
  diskKb: number | undefined;
  /** Last tool call or exec. */
  lastActivityMs: number;
}

/** Why a running worker must be stopped now, or undefined. Pure. */
export function limitExceeded(worker: Worker, usage: WorkerUsage): string | undefined {
  const { diskMb, timeoutMs, idleTimeoutMs } = worker.resources;
  if (usage.diskKb !== undefined && usage.diskKb > diskMb * 1024) {
    return `The workspace uses ${Math.round(usage.diskKb / 1024)} MB, over its ${diskMb} MB limit (resources.diskMb). Free space (the files are kept) or raise the limit, then start the worker again.`;
  }
  const startedMs = worker.startedAt === undefined ? undefined : Date.parse(worker.startedAt);
  if (timeoutMs !== undefined && startedMs !== undefined && usage.nowMs - startedMs > timeoutMs) {
    return `The worker reached its lifetime limit of ${timeoutMs} ms (resources.timeoutMs).`;
  }
  if (idleTimeoutMs !== undefined && usage.nowMs - usage.lastActivityMs > idleTimeoutMs) {
    return `No tool call or exec for ${idleTimeoutMs} ms (resources.idleTimeoutMs).`;
  }
  return undefined;
}
