import type { ContainerDriver } from "../docker/container-driver.js";
import { usesEgressProxy } from "../docker/container-spec.js";
import { acceptAuditEntries, type AuditSource } from "../permissions/audit-entry.js";
import type { PermissionsInput, Policy } from "../permissions/policy.js";
import { suggestPermissions, type SkippedEntry } from "../permissions/suggest.js";
import { admitBindSources } from "./bind-sources.js";
import type { NetPrompter, WorkerEgress } from "./worker-egress.js";
import type { WorkerLauncher } from "./worker-launcher.js";
import { assertGrantsExist, policyFromInput, toPermissionsInput, writePolicyFile } from "./worker-policy.js";
import type { WorkerRecords } from "./worker-records.js";
import type { WorkerPermissions } from "./workers.js";

/** How many audit entries a worker keeps (the newest). */
const MAX_AUDIT_ENTRIES = 1000;

/** What the policy editor needs. */
export interface PolicyEditorDeps {
  readonly records: WorkerRecords;
  readonly driver: ContainerDriver;
  readonly launcher: WorkerLauncher;
  readonly egress: WorkerEgress;
  readonly dataDir: string;
  /** The control plane's own environment, source of env vars granted by name. */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
}

/** Reads and edits workers' policies; keeps what audit mode recorded against them. */
export class PolicyEditor implements WorkerPermissions {
  constructor(private readonly deps: PolicyEditorDeps) {}

  async permissions(id: string): Promise<Policy> {
    return (await this.deps.records.load(id)).permissions;
  }

  /**
   * Replaces the fields of the policy given in `input`. The tools and the egress proxy see
   * the new policy at once; what needs a different container (mounts, network mode) is
   * reported and applies on the next start.
   */
  async updatePermissions(
    id: string,
    input: PermissionsInput,
  ): Promise<{ permissions: Policy; appliesOnNextStart: boolean }> {
    const { records, launcher, egress, driver } = this.deps;
    return records.lock.run(id, async () => {
      const worker = await records.load(id);
      const merged = { ...toPermissionsInput(worker.permissions), ...input };
      const policy = policyFromInput(merged, this.deps.dataDir);
      await assertGrantsExist(policy);
      const bindSources = await admitBindSources(policy, this.deps.hostEnv, worker.bindSources);
      const updated = { ...worker, permissions: policy, bindSources };
      // Refuses (before any change) a policy the worker's requested runtime cannot carry.
      const nextStart = launcher.withRuntime(updated);
      await writePolicyFile(records.runDir(id), policy, worker.approvals);
      egress.setPolicy(id, policy);
      const container = worker.containerId === undefined ? undefined : await driver.inspect(worker.containerId);
      const appliesOnNextStart = container !== undefined && (await launcher.specChanged(nextStart, container.labels));
      if (container?.running && usesEgressProxy(policy)) await egress.ensure(id);
      await records.save({ ...updated, pendingRestart: appliesOnNextStart || undefined });
      await records.event(id, "permissions_changed", { appliesOnNextStart });
      return { permissions: policy, appliesOnNextStart };
    });
  }

  async grantPermission(id: string, permission: { kind: string; target: string }): Promise<void> {
    const policy = await this.permissions(id);
    const kind = permission.kind as "read" | "write" | "net" | "run" | "env";
    const current = policy[kind];
    if (current === true) return;
    await this.updatePermissions(id, { [kind]: [...(Array.isArray(current) ? current : []), permission.target] });
  }

  /**
   * Records what audit mode allowed but enforce would refuse (deduplicated). Reports come
   * partly from inside the sandbox, so they count only while the worker is in audit mode,
   * and only entries with valid targets are kept (see acceptAuditEntries).
   */
  async recordAudit(id: string, entries: readonly unknown[], source: AuditSource = "sandbox"): Promise<void> {
    const valid = acceptAuditEntries(entries, source);
    if (valid.length === 0) return;
    const { records } = this.deps;
    await records.lock.run(id, async () => {
      const worker = await records.store.getWorker(id);
      if (worker === undefined || worker.permissions.mode !== "audit") return;
      const known = new Set(worker.audit.map((entry) => `${entry.kind}\0${entry.target}`));
      const fresh = valid.filter((entry) => !known.has(`${entry.kind}\0${entry.target}`));
      if (fresh.length === 0) return;
      await records.save({ ...worker, audit: [...worker.audit, ...fresh].slice(-MAX_AUDIT_ENTRIES) });
      await records.event(id, "audit", { entries: fresh });
    });
  }

  async suggestedPermissions(id: string): Promise<{ permissions: Policy; skipped: SkippedEntry[] }> {
    const worker = await this.deps.records.load(id);
    return suggestPermissions(worker.permissions, worker.audit);
  }

  setNetPrompter(prompter: NetPrompter): void {
    this.deps.egress.setPrompter(prompter);
  }
}
