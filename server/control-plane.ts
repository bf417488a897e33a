import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "../runtime/config/config.js";
import type { ContainerDriver } from "../runtime/docker/container-driver.js";
import { sandboxUser } from "../runtime/docker/container-spec.js";
import { DockerDriver } from "../runtime/docker/docker-driver.js";
import type { RuntimeSummary } from "../runtime/docker/runtime-choice.js";
import { AdmissionQueue } from "../runtime/admission/admission-queue.js";
import { AgentRunner } from "../runtime/agents/agent-runner.js";
import { ApprovalQueue } from "../runtime/approvals/approval-queue.js";
import { PipelineService } from "../runtime/pipeline/pipeline-service.js";
import { OrchestratorEndpoint } from "./orchestrator/orchestrator-endpoint.js";
import { EventLog } from "../runtime/events/event-log.js";
import { ensureSandboxImage } from "../runtime/image/sandbox-image.js";
import { ExecStdioTransport } from "../runtime/mcp/exec-stdio-transport.js";
import { LowdbStateStore } from "../runtime/store/lowdb-store.js";
import { ResourceWatchdog } from "../runtime/workers/resource-watchdog.js";
import { createWorkers } from "../runtime/workers/create-workers.js";
import type { Workers } from "../runtime/workers/workers.js";
import type { WorkerPool } from "../runtime/workers/worker-pool.js";
import type { WorkerPools } from "../runtime/workers/worker-pools.js";
import { McpServers, socketsOutsideGvisor } from "../runtime/workers/mcp-servers.js";
import { McpStandby } from "../runtime/workers/mcp-standby.js";
import { createApp } from "./app.js";
import { createApprovalHandler, createNetPrompter } from "./control-plane/approval-prompts.js";
import { createResponseReporter, createToolCallReporter } from "./control-plane/bridge-reports.js";
import { probeWorkspaceDiskLimits } from "./control-plane/disk-limits.js";
import { closeServer, listen } from "./control-plane/http-server.js";
import { WorkerIds } from "../runtime/workers/worker-ids.js";
import { createWorkerPools } from "./control-plane/warm-pools.js";
import { chooseWorkerRuntimes } from "./control-plane/worker-runtimes.js";
import { createLogger } from "./logger.js";
import { allowedHostHeaders } from "./middleware/guards.js";
import { ShellUpgrades } from "./shell-upgrade.js";
import { WorkerBridge } from "./mcp/worker-bridge.js";
import { loadOrCreateToken, type TokenSource } from "./token.js";

/** The project root (where Dockerfile.sandbox and tools/ live). */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A running control plane. */
export interface ControlPlane {
  readonly url: string;
  readonly token: string;
  readonly tokenSource: TokenSource;
  readonly tokenFile: string;
  readonly image: string;
  /** What workers run under: the runtime a default-policy worker gets and the exceptions. */
  readonly runtime: RuntimeSummary;
  readonly workers: Workers;
  readonly bridge: WorkerBridge;
  /** The host-wide queue for heavy work. */
  readonly admission: AdmissionQueue;
  /** The warm pool of empty slots, when WORKCELL_POOL_SIZE > 0. */
  readonly pool: WorkerPool | undefined;
  /** Every warm pool: the empty slots' and one per WORKCELL_POOL_REPOS entry. */
  readonly pools: WorkerPools;
  /** Stops serving and ends MCP sessions; worker containers keep running. */
  close(): Promise<void>;
}

/** Options beyond the configuration. */
export interface StartOptions {
  readonly driver?: ContainerDriver;
  readonly onProgress?: (line: string) => void;
  readonly log?: (message: string) => void;
  /** The environment env grants may name (the CLI passes process.env; default: none). */
  readonly hostEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * false: every MCP session goes over its exec's stdio, under runc too (for a driver that
   * watches or rewrites what the server writes there). Default: a session socket under runc.
   */
  readonly sessionSockets?: boolean;
}

/**
 * Starts the control plane: checks the engine, makes sure the sandbox image exists (building
 * it with progress if not), reconciles stored workers with labelled containers, and serves.
 */
export async function startControlPlane(config: Config, options: StartOptions = {}): Promise<ControlPlane> {
  let secrets: () => string[] = () => [config.token ?? ""];
  const logger = createLogger({
    level: config.logLevel,
    format: config.logFormat,
    secrets: () => secrets(),
    ...(options.log === undefined ? {} : { write: options.log }),
  });
  const log = (message: string) => logger.warn(message);
  const hostUid = process.getuid?.() ?? 1000;
  const hostGid = process.getgid?.() ?? 1000;
  const user = sandboxUser(hostUid, hostGid);
  const driver = options.driver ?? new DockerDriver({ sandboxUser: user });
  const engine = await driver.info();
  const runtimes = chooseWorkerRuntimes(engine, config.runtime, logger);
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const { token, source, file } = await loadOrCreateToken(config.dataDir, config.token);
  const image =
    config.image ??
    (await ensureSandboxImage(driver, PROJECT_ROOT, options.onProgress ?? ((line) => logger.info(line))));

  const store = await LowdbStateStore.open(config.dataDir);
  secrets = () => [token];
  const events = await EventLog.open(config.dataDir, () => secrets());
  const admission = new AdmissionQueue(config.heavyConcurrency ?? engine.cpus, {
    perWorker: config.heavyPerWorker,
    leaseMs: config.heavyLeaseMs,
    onLeaseExpired: (workerId) =>
      void events.append(workerId, "admission_lease_expired", { leaseMs: config.heavyLeaseMs }).catch(() => undefined),
  });
  const instance = createHash("sha256").update(config.dataDir).digest("hex").slice(0, 16);
  const disk = await probeWorkspaceDiskLimits(config, logger);
  // In-container MCP servers started with each container, for its first session.
  // Sessions go over a socket where that is faster under load too: not under gVisor (see McpServers).
  const mcpServers = new McpServers(driver, {
    sockets: options.sessionSockets === false ? false : socketsOutsideGvisor(runtimes.catalog),
  });
  const standby = new McpStandby(mcpServers);
  const owner = user.uid !== hostUid ? user : undefined;
  const ids = new WorkerIds(store);
  const pools = await createWorkerPools(config, {
    ids,
    driver,
    dataDir: config.dataDir,
    instance,
    image,
    runtime: runtimes.defaultRuntime.runtime,
    user,
    hostCpus: engine.cpus,
    log,
    diskImages: disk.available,
    standby,
    ...(owner === undefined ? {} : { owner }),
  });
  const workers = createWorkers({
    config,
    store,
    ids,
    driver,
    defaultImage: image,
    instance,
    sandboxUser: user,
    hostCpus: engine.cpus,
    chownWorkspaces: user.uid !== hostUid,
    diskImages: disk.available,
    pools,
    standby,
    mcpServers,
    hostEnv: options.hostEnv ?? {},
    runtimes: runtimes.catalog,
    events,
    admission,
  });
  secrets = () => [token, ...workers.secrets()];
  await workers.lifecycle.reconcile();
  await pools.start(
    driver,
    instance,
    config.dataDir,
    new Set(
      (await store.listWorkers()).map((worker) => worker.containerId).filter((id): id is string => id !== undefined),
    ),
  );
  const approvals = new ApprovalQueue(store, {
    event: (workerId, type, data) => events.append(workerId, type, data),
    grantForLife: (workerId, permission) => workers.permissions.grantPermission(workerId, permission),
  });
  await approvals.abandonLeftovers();
  const agents = new AgentRunner(driver, (workerId, type, data) => events.append(workerId, type, data));
  const pipeline = new PipelineService({
    store,
    driver,
    agents,
    admission,
    requireRunning: (workerId) => workers.lookup.requireRunning(workerId),
    event: (workerId, type, data) => events.append(workerId, type, data),
  });
  let port = config.port;
  const urlHost = config.host.includes(":") ? `[${config.host}]` : config.host;
  const baseUrl = () => `http://${urlHost}:${port}`;
  const orchestrator = new OrchestratorEndpoint({ workers, pipeline, agents, driver, baseUrl }, config.maxMcpBodyBytes);
  const prompts = { workers, approvals, dataDir: config.dataDir, log };
  workers.permissions.setNetPrompter(createNetPrompter(prompts));
  const bridge = new WorkerBridge({
    openTransport: async (workerId) => new ExecStdioTransport(await workers.sessions.openMcpSession(workerId)),
    idleMs: config.sessionIdleMs,
    serverMethods: { elicitation: config.mcpElicitation, sampling: config.mcpSampling },
    maxBodyBytes: config.maxMcpBodyBytes,
    log,
    onActivity: (workerId) => workers.activity.touch(workerId),
    onAdmissionRequest: ({ workerId, signal, onPosition }) => admission.acquire(workerId, { signal, onPosition }),
    onApprovalRequest: createApprovalHandler(prompts),
    onToolCall: createToolCallReporter(logger, events, log),
    onResponse: createResponseReporter(workers, log),
  });
  workers.lifecycle.onWorkerDown((workerId) => void bridge.closeWorker(workerId));
  const watchdog = new ResourceWatchdog(workers, config.watchdogIntervalMs, log, (workerId, type, data) =>
    events.append(workerId, type, data),
  );
  watchdog.start();

  const shells = new ShellUpgrades();
  const app = createApp({
    pools,
    shells,
    token,
    workers,
    bridge,
    driver,
    configuredRuntime: config.runtime,
    allowedHosts: () => allowedHostHeaders(config.host, port),
    baseUrl,
    maxBodyBytes: config.maxBodyBytes,
    maxMcpBodyBytes: config.maxMcpBodyBytes,
    log,
    events,
    approvals,
    orchestrator,
    pipeline,
  });
  const server = await listen(
    app.fetch,
    shells,
    { host: config.host, port: config.port },
    () => void bridge.closeAll(),
  );
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://${urlHost}:${port}`,
    token,
    tokenSource: source,
    tokenFile: file,
    image,
    runtime: runtimes.summary,
    workers,
    bridge,
    admission,
    pool: pools.empty,
    pools,
    close: async () => {
      watchdog.stop();
      await orchestrator.closeAll();
      shells.closeAll();
      await bridge.closeAll();
      await workers.lifecycle.close();
      await pools.close();
      standby.closeAll();
      await closeServer(server);
    },
  };
}
