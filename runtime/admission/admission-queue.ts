import { AppError } from "../errors/app-error.js";

/** Releases an admitted slot; calling it more than once (or after the lease expired) is harmless. */
export type Release = () => void;

/** Slots one worker may hold at once unless configured otherwise. */
export const DEFAULT_SLOTS_PER_WORKER = 1;
/** How long a slot is lent before it returns to the queue on its own (longer than any heavy call may run). */
export const DEFAULT_LEASE_MS = 65 * 60_000;
/** Requests one worker may have waiting at once; more are refused. */
export const MAX_WAITING_PER_WORKER = 64;

/** How the queue shares slots: per-worker cap and lease length. */
export interface AdmissionOptions {
  readonly perWorker?: number;
  readonly leaseMs?: number;
  /** Called when a lease runs out before its holder released it. */
  readonly onLeaseExpired?: (workerId: string) => void;
}

interface Waiter {
  workerId: string;
  leaseMs: number;
  /** Asked for by the operator (REST exec), not the sandbox: not held to the per-worker cap. */
  uncapped: boolean;
  grant: (release: Release) => void;
  reject: (error: Error) => void;
  onPosition?: (position: number) => void;
}

/**
 * A host-wide queue for heavy work (builds, tests, exec) with a concurrency limit and a
 * fair share across workers: when a slot frees, the next worker in round-robin order gets
 * it, so one worker with many queued commands cannot starve the others. Waiters are told
 * their position as it changes. Slots are leases: a worker holds at most `perWorker` at once
 * and each returns to the queue when released or when its lease runs out, so a sandbox that
 * asks for slots and never gives them back cannot take the host's heavy capacity.
 */
export class AdmissionQueue {
  private running = 0;
  private readonly queues = new Map<string, Waiter[]>();
  private order: string[] = [];
  /** Slots granted per worker, evened out when a worker starts waiting again. */
  private readonly served = new Map<string, number>();
  private readonly lastGrant = new Map<string, number>();
  private grants = 0;
  /** Slots each worker holds now. */
  private readonly held = new Map<string, number>();
  readonly perWorker: number;
  private readonly leaseMs: number;

  constructor(
    readonly limit: number,
    private readonly options: AdmissionOptions = {},
  ) {
    this.perWorker = Math.max(1, options.perWorker ?? DEFAULT_SLOTS_PER_WORKER);
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /**
   * Waits for a slot; `signal` withdraws the request. The slot is lent for `leaseMs` (the
   * queue's default unless given). A worker with too many requests waiting is refused.
   * `uncapped` marks a request the operator made (REST exec): the per-worker cap exists
   * against a sandbox hoarding slots, and holding the operator's commands to it would let
   * one long exec block the next one on the same worker for good.
   */
  acquire(
    workerId: string,
    options: {
      signal?: AbortSignal;
      onPosition?: (position: number) => void;
      leaseMs?: number;
      uncapped?: boolean;
    } = {},
  ): Promise<Release> {
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        workerId,
        leaseMs: options.leaseMs ?? this.leaseMs,
        uncapped: options.uncapped === true,
        grant: resolve,
        reject,
        ...(options.onPosition === undefined ? {} : { onPosition: options.onPosition }),
      };
      if (options.signal?.aborted) return reject(new Error("cancelled before admission"));
      const queue = this.queues.get(workerId) ?? [];
      if (queue.length >= MAX_WAITING_PER_WORKER) {
        return reject(
          new AppError(
            "conflict",
            `Worker ${workerId} already has ${queue.length} heavy commands waiting for a slot (the most allowed is ${MAX_WAITING_PER_WORKER}). Wait for them to finish before starting more.`,
          ),
        );
      }
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

  /** Slots `workerId` holds now. */
  heldBy(workerId: string): number {
    return this.held.get(workerId) ?? 0;
  }

  /** Running and queued counts (for status and tests). */
  status(): { running: number; queued: number; limit: number } {
    let queued = 0;
    for (const list of this.queues.values()) queued += list.length;
    return { running: this.running, queued, limit: this.limit };
  }

  private dispatch(): void {
    // The waiting worker served least so far goes next (ties: the one served longest ago);
    // the one served goes to the back of the order. Workers at their cap wait their turn.
    for (;;) {
      const eligible = this.order.filter(
        (id) => this.heldBy(id) < this.perWorker || this.queues.get(id)?.[0]?.uncapped === true,
      );
      if (this.running >= this.limit || eligible.length === 0) break;
      const least = Math.min(...eligible.map((id) => this.served.get(id) ?? 0));
      const next = eligible
        .filter((id) => (this.served.get(id) ?? 0) === least)
        .sort((a, b) => (this.lastGrant.get(a) ?? -1) - (this.lastGrant.get(b) ?? -1))[0] as string;
      this.lastGrant.set(next, ++this.grants);
      this.order = this.order.filter((id) => id !== next);
      const queue = this.queues.get(next) as Waiter[];
      const waiter = queue.shift() as Waiter;
      if (queue.length > 0) this.order.push(next);
      else this.queues.delete(next);
      this.served.set(next, least + 1);
      waiter.grant(this.lend(next, waiter.leaseMs));
    }
    this.announce();
  }

  /** Takes a slot for `workerId` and answers the function that returns it (at most once; the lease timer returns it too). */
  private lend(workerId: string, leaseMs: number): Release {
    this.running += 1;
    this.held.set(workerId, this.heldBy(workerId) + 1);
    let released = false;
    const give = () => {
      if (released) return false;
      released = true;
      clearTimeout(timer);
      this.running -= 1;
      const left = this.heldBy(workerId) - 1;
      if (left > 0) this.held.set(workerId, left);
      else this.held.delete(workerId);
      this.dispatch();
      return true;
    };
    const timer = setTimeout(() => {
      if (give()) this.options.onLeaseExpired?.(workerId);
    }, leaseMs);
    timer.unref();
    return () => void give();
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
