import type { ContainerDriver } from "../docker/container-driver.js";

/** One of the driver's calls, for `failNext`. */
export type DriverOperation = keyof ContainerDriver;

/** Errors queued per driver operation; each call of the operation takes (throws) the oldest. */
export class InjectedFailures {
  private readonly queued = new Map<DriverOperation, unknown[]>();

  /** Queues `error` for the next call of `operation` that finds none queued before it. */
  add(operation: DriverOperation, error: unknown): void {
    this.queued.set(operation, [...(this.queued.get(operation) ?? []), error]);
  }

  /** Throws the oldest error queued for `operation`, if any. */
  take(operation: DriverOperation): void {
    const queued = this.queued.get(operation);
    if (queued !== undefined && queued.length > 0) throw queued.shift();
  }
}
