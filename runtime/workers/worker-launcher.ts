import type { ContainerDriver, ContainerSpec } from "../docker/container-driver.js";
import { buildContainerSpec, LABEL_SPEC, usesEgressProxy } from "../docker/container-spec.js";
import { chooseRuntime, runtimeNeedsOf, type RuntimeCatalog } from "../docker/runtime-choice.js";
import { isoNow } from "../clock/clock.js";
import { GATE_VAR } from "../../contract/container.js";
import { verifyBindSources } from "./bind-sources.js";
import type { McpStandby } from "./mcp-standby.js";
import type { WorkerEgress } from "./worker-egress.js";
import { findHiddenPaths, writePolicyFile } from "./worker-policy.js";
import type { WorkerRecords } from "./worker-records.js";
import type { Worker } from "./worker.js";

/** What the launcher needs to build and start workers' containers. */
export interface LauncherDeps {
  readonly driver: ContainerDriver;
  readonly records: WorkerRecords;
  readonly egress: WorkerEgress;
  /** Identifies this control plane's containers (derived from the data dir). */
  readonly instance: string;
  readonly sandboxUser: { uid: number; gid: number };
  readonly hostCpus: number;
  /** The runtime WORKCELL_RUNTIME asks for, if any. */
  readonly configuredRuntime: string | undefined;
  /** OCI runtimes the engine offers, and its default. */
  readonly runtimes: RuntimeCatalog;
  /** MCP servers started with each container for its first session (absent: sessions start their own). */
  readonly standby?: McpStandby;
}

/** The environment of a worker's MCP server: the gate state it resumes from. */
export function mcpSessionEnv(worker: Worker): string[] {
  return worker.gate === undefined ? [] : [`${GATE_VAR}=${JSON.stringify(worker.gate)}`];
}

/** Builds workers' container specs and brings their containers up. */
export class WorkerLauncher {
  constructor(private readonly deps: LauncherDeps) {}

  /**
   * Brings the worker's container up: policy file and egress proxy first, then the
   * container — recreated when it is missing or was made from an older policy (the
   * workspace lives on the host, so nothing is lost).
   */
  async launch(planned: Worker): Promise<Worker> {
    const { driver, records, egress } = this.deps;
    const worker = this.withRuntime(planned);
    await writePolicyFile(records.runDir(worker.id), worker.permissions, worker.approvals);
    egress.setPolicy(worker.id, worker.permissions);
    if (usesEgressProxy(worker.permissions)) await egress.ensure(worker.id);
    const spec = await this.containerSpec(worker);
    let containerId = worker.containerId;
    const existing = containerId === undefined ? undefined : await driver.inspect(containerId);
    if (existing !== undefined && existing.labels[LABEL_SPEC] !== spec.labels[LABEL_SPEC]) {
      await driver.remove(existing.id);
      containerId = undefined;
    } else if (existing === undefined) containerId = undefined;
    if (containerId === undefined) {
      // Docker follows symlinks in bind sources: check them right before each create and start.
      await verifyBindSources(worker.id, worker.permissions, worker.bindSources);
      containerId = await driver.create(spec);
      await records.save({ ...worker, containerId });
    }
    await verifyBindSources(worker.id, worker.permissions, worker.bindSources);
    await driver.start(containerId);
    if (usesEgressProxy(worker.permissions)) await egress.waitForForwarder(containerId);
    const started: Worker = {
      ...worker,
      containerId,
      status: "running",
      error: undefined,
      startedAt: isoNow(records.clock),
    };
    delete started.pendingRestart;
    delete started.stopReason;
    records.touch(worker.id);
    this.deps.standby?.prime(
      { containerId, runDir: records.runDir(worker.id), runtime: worker.runtime },
      mcpSessionEnv(started),
    );
    return records.save(started);
  }

  /**
   * The worker with the runtime its next container gets: a requested one is kept (and must
   * still fit the policy, which may have changed); otherwise WORKCELL_RUNTIME or the
   * default rule decides again, so a changed policy or engine is honoured at each start.
   */
  withRuntime(worker: Worker): Worker {
    const requested =
      worker.runtimeSource === "requested" || (worker.runtimeSource === undefined && worker.runtime !== undefined)
        ? worker.runtime
        : undefined;
    const choice = chooseRuntime({
      requested,
      configured: this.deps.configuredRuntime,
      needs: runtimeNeedsOf(worker.permissions),
      catalog: this.deps.runtimes,
    });
    return { ...worker, runtime: choice.runtime, runtimeSource: choice.source };
  }

  /** Whether the worker's container was made from another spec than its policy now asks for. */
  async specChanged(worker: Worker, containerLabels: Readonly<Record<string, string>>): Promise<boolean> {
    return containerLabels[LABEL_SPEC] !== (await this.containerSpec(worker)).labels[LABEL_SPEC];
  }

  private async containerSpec(worker: Worker): Promise<ContainerSpec> {
    return buildContainerSpec(worker, {
      instance: this.deps.instance,
      user: this.deps.sandboxUser,
      hostCpus: this.deps.hostCpus,
      runDir: this.deps.records.runDir(worker.id),
      hidden: await findHiddenPaths(worker.permissions),
    });
  }
}
