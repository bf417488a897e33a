/** An operation run under the lock; its signal aborts when the key is preempted. */
export type LockedOperation<T> = (signal: AbortSignal) => Promise<T>;

/**
 * Runs operations one at a time per key (e.g. per worker), in arrival order. Each operation
 * gets an abort signal so a preempting caller (stop, remove) can end whatever holds or waits
 * for the key instead of queueing behind it forever.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly controllers = new Map<string, Set<AbortController>>();

  /** Runs `operation` after every earlier operation on `key` has settled. */
  run<T>(key: string, operation: LockedOperation<T>): Promise<T> {
    const controller = new AbortController();
    const pending = this.controllers.get(key) ?? new Set<AbortController>();
    pending.add(controller);
    this.controllers.set(key, pending);
    const guarded = async () => {
      try {
        return await operation(controller.signal);
      } finally {
        pending.delete(controller);
        if (pending.size === 0 && this.controllers.get(key) === pending) this.controllers.delete(key);
      }
    };
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(guarded, guarded);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Runs `operation` at once if nothing holds or waits for `key`; otherwise answers undefined without waiting. */
  runIfIdle<T>(key: string, operation: LockedOperation<T>): Promise<T> | undefined {
    return this.isBusy(key) ? undefined : this.run(key, operation);
  }

  /** Settles once nothing that runs or waits for `key` now is left (at once when nothing does). */
  whenIdle(key: string): Promise<void> {
    const tail = this.tails.get(key);
    return tail === undefined ? Promise.resolve() : tail.then(() => undefined);
  }

  /** Whether an operation on `key` runs or waits. */
  isBusy(key: string): boolean {
    return this.tails.has(key);
  }

  /** Aborts every operation on `key` that runs or waits now (later ones are not affected); answers whether there were any. */
  preempt(key: string, reason: string): boolean {
    const pending = this.controllers.get(key);
    if (pending === undefined || pending.size === 0) return false;
    for (const controller of pending) controller.abort(new Error(reason));
    return true;
  }
}
