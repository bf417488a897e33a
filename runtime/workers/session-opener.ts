import type { AdmissionQueue } from "../admission/admission-queue.js";
import type { ContainerDriver, ExecSession } from "../docker/container-driver.js";
import { isoNow } from "../clock/clock.js";
import type { DiffResult, ExecRequest, ExecResponse } from "./exec-request.js";
import type { ExportResult } from "./export-branch.js";
import { openInteractiveShell, type InteractiveShell, type ShellTerminal } from "./interactive-shell.js";
import type { McpServers } from "./mcp-servers.js";
import type { McpStandby } from "./mcp-standby.js";
import type { ToolsChannels } from "./tools-channel.js";
import { mcpSessionEnv } from "./worker-launcher.js";
import { diffWorker, execInWorker, exportWorker, type OperationContext } from "./worker-operations.js";
import type { WorkerRecords } from "./worker-records.js";
import type { WorkerLookup, WorkerPermissions, WorkerSessions } from "./workers.js";

/** What the session opener needs. */
export interface SessionOpenerDeps {
  readonly records: WorkerRecords;
  readonly lookup: WorkerLookup;
  readonly permissions: WorkerPermissions;
  readonly driver: ContainerDriver;
  /** Control channels: exec, diff and the like without a docker exec each. */
  readonly channels: ToolsChannels;
  readonly dataDir: string;
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly sandboxUser: { uid: number; gid: number };
  /** The host-wide queue for heavy work (absent: unmetered). */
  readonly admission?: AdmissionQueue;
  /** Starts the in-container MCP servers. */
  readonly mcpServers: McpServers;
  /** MCP servers started with each container for its first session (absent: sessions start their own). */
  readonly standby?: McpStandby;
}

/** Runs things in running workers: MCP sessions, commands, shells, diffs and exports. */
export class SessionOpener implements WorkerSessions {
  private readonly context: OperationContext;

  constructor(private readonly deps: SessionOpenerDeps) {
    const { records, admission } = deps;
    this.context = {
      driver: deps.driver,
      channels: deps.channels,
      hostEnv: deps.hostEnv,
      dataDir: deps.dataDir,
      recordAudit: (id, entries, source) => deps.permissions.recordAudit(id, entries, source),
      admit: async (workerId, signal, leaseMs) =>
        admission === undefined ? () => undefined : admission.acquire(workerId, { signal, leaseMs, uncapped: true }),
      addSecrets: (values) => records.addSecrets(values),
      event: (id, type, data) => records.event(id, type, data),
    };
  }

  async openMcpSession(id: string): Promise<ExecSession> {
    // A server waiting in the stored worker's container shows that container runs: the
    // session takes it without asking the engine first (which the first session of every
    // new worker would wait for). A container that died meanwhile ends that server, and the
    // standby then has nothing to hand over.
    const stored = await this.deps.records.store.getWorker(id);
    if (stored?.status === "running" && stored.containerId !== undefined) {
      const waiting = await this.deps.standby?.take(stored.containerId, mcpSessionEnv(stored));
      if (waiting !== undefined) return waiting;
    }
    const { worker, containerId } = await this.deps.lookup.requireRunning(id);
    const env = mcpSessionEnv(worker);
    return (
      (await this.deps.standby?.take(containerId, env)) ??
      this.deps.mcpServers.start({ containerId, runDir: this.deps.records.runDir(id), runtime: worker.runtime }, env)
    );
  }

  async exec(id: string, request: ExecRequest): Promise<ExecResponse> {
    const { worker, containerId } = await this.deps.lookup.requireRunning(id);
    this.deps.records.touch(id);
    return execInWorker(this.context, worker, containerId, request);
  }

  async openShell(id: string, terminal: ShellTerminal): Promise<InteractiveShell> {
    const { worker, containerId } = await this.deps.lookup.requireRunning(id);
    const { records } = this.deps;
    records.touch(id);
    return openInteractiveShell(this.context, worker, containerId, this.deps.sandboxUser, terminal, () =>
      records.touch(id),
    );
  }

  async diff(id: string): Promise<DiffResult> {
    const { worker, containerId } = await this.deps.lookup.requireRunning(id);
    return diffWorker(this.context, worker, containerId);
  }

  async export(id: string, branch: string | undefined): Promise<ExportResult> {
    const { containerId } = await this.deps.lookup.requireRunning(id);
    const { records } = this.deps;
    return records.lock.run(id, async (signal) => {
      const worker = await records.load(id);
      const result = await exportWorker(this.context, worker, containerId, branch, signal);
      await records.save({
        ...worker,
        lastExport: { branch: result.branch, commit: result.commit, at: isoNow(records.clock) },
      });
      return result;
    });
  }
}
