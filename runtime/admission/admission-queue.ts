/** Releases an admitted slot; calling it more than once is harmless. */
export type Release = () => void;

interface Waiter {
  workerId: string;
  grant: (release: Release) => void;
  reject: (error: Error) => void;
  onPosition?: (position: number) => void;
}

/**
 * A host-wide queue for heavy work (builds, tests, exec) with a concurrency limit and a
 * fair share across workers: when a slot frees, the next worker in round-robin order gets
 * it, so one worker with many queued commands cannot starve the others. Waiters are told
 * their position as it changes.
 */
export class AdmissionQueue {
  private running = 0;
  private readonly queues = new Map<string, Waiter[]>();
  private order: string[] = [];
  /** Slots granted per worker, evened out when a worker starts waiting again. */
  private readonly served = new Map<string, number>();
  private readonly lastGrant = new Map<string, number>();
  private grants = 0;

  constructor(readonly limit: number) {}

  /** Waits for a slot; `signal` withdraws the request. */
  acquire(workerId: string, options: { signal?: AbortSignal; onPosition?: (position: number) => void } = {}): Promise<Release> {
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { workerId, grant: resolve, reject, ...(options.onPosition === undefined ? {} : { onPosition: options.onPosition }) };
      if (options.signal?.aborted) return reject(new Error("cancelled before admission"));
      const queue = this.queues.get(workerId) ?? [];
      queue.push(waiter);
      this.queues.set(workerId, queue);
      if (!this.order.includes(workerId)) {
        // A worker arriving (or coming back after a quiet spell) starts level with the least
        // served waiting worker: no credit for the time it was not waiting.
        const floor = this.order.length === 0 ? 0 : Math.min(...this.order.map((id) => this.served.get(id) ?? 0));
        this.served.set(workerId, Math.max(this.served.get(workerId) ?? 0, floor));
        this.order.push(workerId);
      }
      options.signal?.addEventListener(
        "abort",
        () => {
          const list = this.queues.get(workerId);
          const index = list?.indexOf(waiter) ?? -1;
          if (list !== undefined && index >= 0) {
            list.splice(index, 1);
            if (list.length === 0) this.dropWorker(workerId);
            reject(new Error("cancelled while waiting for admission"));
            this.announce();
          }
        },
        { once: true },
      );
      this.dispatch();
    });
  }

  /** Running and queued counts (for status and tests). */
  status(): { running: number; queued: number; limit: number } {
    let queued = 0;
    for (const list of this.queues.values()) queued += list.length;
    return { running: this.running, queued, limit: this.limit };
  }

  private dispatch(): void {
    // The waiting worker served least so far goes next (ties: the one served longest ago);
    // the one served goes to the back of the order.
    while (this.running < this.limit && this.order.length > 0) {
      const least = Math.min(...this.order.map((id) => this.served.get(id) ?? 0));
      const next = this.order
        .filter((id) => (this.served.get(id) ?? 0) === least)
        .sort((a, b) => (this.lastGrant.get(a) ?? -1) - (this.lastGrant.get(b) ?? -1))[0] as string;
      this.lastGrant.set(next, ++this.grants);
      this.order = this.order.filter((id) => id !== next);
      const queue = this.queues.get(next) as Waiter[];
      const waiter = queue.shift() as Waiter;
      if (queue.length > 0) this.order.push(next);
      else this.queues.delete(next);
      this.served.set(next, least + 1);
      this.running += 1;
      let released = false;
      waiter.grant(() => {
        if (released) return;
        released = true;
        this.running -= 1;
        this.dispatch();
      });
    }
    this.announce();
  }

  private dropWorker(workerId: string): void {
    this.queues.delete(workerId);
    this.order = this.order.filter((id) => id !== workerId);
  }

  /** Tells every waiter its position in the round-robin order (1 = next). */
  private announce(): void {
    const lists = this.order.map((id) => [...(this.queues.get(id) ?? [])]);
    let position = 1;
    for (let round = 0; lists.some((list) => list.length > round); round += 1) {
      for (const list of lists) {
        const waiter = list[round];
        if (waiter === undefined) continue;
        waiter.onPosition?.(position);
        position += 1;
      }
    }
  }
}
