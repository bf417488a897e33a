import type { ExecSession } from "../docker/container-driver.js";
import type { McpServers, McpTarget } from "./mcp-servers.js";

/** How long a started server waits for its session before it is ended (an idle worker then holds none). */
export const STANDBY_TTL_MS = 60_000;

interface Primed {
  readonly env: string;
  readonly session: Promise<ExecSession>;
  readonly timer: NodeJS.Timeout;
  ended: boolean;
}

/**
 * In-container MCP servers started ahead of a worker's first session: when a container
 * starts (a new worker, a restart, a warm-pool slot), one server is started beside it, so
 * the first `initialize` finds it running instead of waiting for `docker exec` and Node.
 * It is exactly the process a session would start (same argv, identity and environment);
 * one that is not taken within STANDBY_TTL_MS, or whose environment no longer matches, is
 * ended instead.
 */
export class McpStandby {
  private readonly primed = new Map<string, Primed>();

  constructor(
    private readonly servers: McpServers,
    private readonly ttlMs: number = STANDBY_TTL_MS,
  ) {}

  /** Starts a server for the container's next session (none if one is waiting already). */
  prime(target: McpTarget, env: readonly string[]): void {
    const { containerId } = target;
    if (this.primed.has(containerId)) return;
    const session = this.servers.start(target, env);
    const entry: Primed = {
      env: JSON.stringify(env),
      session,
      timer: setTimeout(() => this.drop(containerId), this.ttlMs),
      ended: false,
    };
    entry.timer.unref();
    this.primed.set(containerId, entry);
    // Its process ended (or never started): nothing to hand over any more.
    void session
      .then((started) => started.exited)
      .catch(() => undefined)
      .then(() => {
        entry.ended = true;
        if (this.primed.get(containerId) === entry) this.forget(containerId);
      });
  }

  /** The waiting server for this container, when it was started with exactly `env`; it is then the caller's. */
  async take(containerId: string, env: readonly string[]): Promise<ExecSession | undefined> {
    const entry = this.primed.get(containerId);
    if (entry === undefined) return undefined;
    this.forget(containerId);
    if (entry.env !== JSON.stringify(env)) {
      void entry.session.then(
        (session) => session.close(),
        () => undefined,
      );
      return undefined;
    }
    const session = await entry.session.catch(() => undefined);
    if (session === undefined || entry.ended) {
      session?.close();
      return undefined;
    }
    return session;
  }

  /** Ends the container's waiting server, if any (its container is stopping). */
  drop(containerId: string): void {
    const entry = this.primed.get(containerId);
    if (entry === undefined) return;
    this.forget(containerId);
    void entry.session.then(
      (session) => session.close(),
      () => undefined,
    );
  }

  /** Ends every waiting server. */
  closeAll(): void {
    for (const containerId of [...this.primed.keys()]) this.drop(containerId);
  }

  /** Containers with a server waiting (for status and tests). */
  get waiting(): number {
    return this.primed.size;
  }

  private forget(containerId: string): void {
    const entry = this.primed.get(containerId);
    if (entry !== undefined) clearTimeout(entry.timer);
    this.primed.delete(containerId);
  }
}
