import { ConnectionSlots } from "./connection-slots.js";
import {
  DEFAULT_MAX_CONNECTIONS_PER_WORKER,
  DEFAULT_MAX_CONNECTIONS_TOTAL,
  EgressProxy,
  type EgressDecider,
} from "./egress-proxy.js";

/** The egress proxies of running workers, one per worker, sharing one host-wide connection budget. */
export class EgressProxies {
  private readonly proxies = new Map<string, EgressProxy>();
  private readonly hostSlots: ConnectionSlots;

  constructor(private readonly limits: { perWorker?: number; total?: number } = {}) {
    this.hostSlots = new ConnectionSlots(limits.total ?? DEFAULT_MAX_CONNECTIONS_TOTAL);
  }

  /** Starts the worker's proxy on `socketPath` unless it already runs. */
  async ensure(workerId: string, socketPath: string, decide: EgressDecider): Promise<void> {
    if (this.proxies.has(workerId)) return;
    const proxy = new EgressProxy(socketPath, decide, {
      maxConnections: this.limits.perWorker ?? DEFAULT_MAX_CONNECTIONS_PER_WORKER,
      hostSlots: this.hostSlots,
    });
    this.proxies.set(workerId, proxy);
    try {
      await proxy.start();
    } catch (error) {
      this.proxies.delete(workerId);
      throw error;
    }
  }

  async close(workerId: string): Promise<void> {
    const proxy = this.proxies.get(workerId);
    this.proxies.delete(workerId);
    await proxy?.close();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.proxies.keys()].map((id) => this.close(id)));
  }
}
