import type { ContainerDriver } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";
import { decideEgress, shouldPromptEgress } from "../net/decide-egress.js";
import { EgressProxies } from "../net/egress-proxies.js";
import type { Policy } from "../permissions/policy.js";
import type { AuditEntry } from "../permissions/suggest.js";

/** Asks a reviewer whether a worker may reach a destination; true when approved. */
export type NetPrompter = (workerId: string, target: string) => Promise<boolean>;

/** How many times (50 ms apart, plus the probe itself) a start waits for the egress forwarder. */
const FORWARDER_WAIT_ATTEMPTS = 150;

/**
 * The network side of workers' policies: one egress proxy per proxied worker, deciding
 * each request from the worker's live policy (so a PATCH applies at once), recording what
 * audit mode lets through, and putting prompts to a reviewer.
 */
export class WorkerEgress {
  private readonly proxies = new EgressProxies();
  private readonly policies = new Map<string, Policy>();
  private prompter: NetPrompter | undefined;

  constructor(
    private readonly deps: {
      driver: ContainerDriver;
      socketPath: (workerId: string) => string;
      recordAudit: (workerId: string, entries: AuditEntry[]) => Promise<void>;
    },
  ) {}

  /** The policy the worker's proxy decides with from now on. */
  setPolicy(workerId: string, policy: Policy): void {
    this.policies.set(workerId, policy);
  }

  /** Lets network prompts reach the operator's approval queue. */
  setPrompter(prompter: NetPrompter): void {
    this.prompter = prompter;
  }

  /** Starts the worker's proxy unless it runs already. */
  async ensure(workerId: string): Promise<void> {
    await this.proxies.ensure(workerId, this.deps.socketPath(workerId), (host, port) =>
      this.decide(workerId, host, port),
    );
  }

  async close(workerId: string): Promise<void> {
    await this.proxies.close(workerId);
  }

  /** Closes the proxy and forgets the policy (the worker is gone). */
  async forget(workerId: string): Promise<void> {
    await this.proxies.close(workerId);
    this.policies.delete(workerId);
  }

  async closeAll(): Promise<void> {
    await this.proxies.closeAll();
  }

  /** Waits until the container's forwarder accepts connections, so the first command after a start never races it. */
  async waitForForwarder(containerId: string): Promise<void> {
    for (let attempt = 0; attempt < FORWARDER_WAIT_ATTEMPTS; attempt += 1) {
      const probe = await this.deps.driver.exec(containerId, {
        argv: ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3128"],
      });
      if (probe.exitCode === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new AppError(
      "internal",
      "The worker's egress forwarder did not start within 10 s; check the container's logs.",
    );
  }

  private async decide(workerId: string, host: string, port: number) {
    const policy = this.policies.get(workerId);
    if (policy === undefined)
      return { allowed: false as const, message: "PermissionDenied: the worker is not running" };
    const decision = decideEgress(policy, host, port);
    if (decision.allowed && decision.audited)
      void this.deps
        .recordAudit(workerId, [{ kind: "net", target: `${host.includes(":") ? `[${host}]` : host}:${port}` }])
        .catch(() => undefined);
    if (!decision.allowed && this.prompter !== undefined && shouldPromptEgress(policy, host, port)) {
      const target = `${host.includes(":") ? `[${host}]` : host}:${port}`;
      return (await this.prompter(workerId, target)) ? { allowed: true as const } : decision;
    }
    return decision;
  }
}
