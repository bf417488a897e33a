import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve, type ServerType } from "@hono/node-server";
import type { Config } from "../runtime/config/config.js";
import { AppError } from "../runtime/errors/app-error.js";
import type { ContainerDriver } from "../runtime/docker/container-driver.js";
import { sandboxUser } from "../runtime/docker/container-spec.js";
import { DockerDriver } from "../runtime/docker/docker-driver.js";
import {
  assertConfiguredRuntime,
  catalogOf,
  chooseRuntime,
  PREFERRED_RUNTIME,
  runtimeNeedsOf,
  summarizeRuntimes,
  type RuntimeSummary,
} from "../runtime/docker/runtime-choice.js";
import { defaultPolicy } from "../runtime/permissions/policy.js";
import { AdmissionQueue } from "../runtime/admission/admission-queue.js";
import { AgentRunner } from "../runtime/agents/agent-runner.js";
import { ApprovalQueue } from "../runtime/approvals/approval-queue.js";
import { buildApprovalRequest } from "../runtime/approvals/approval-request.js";
import { PipelineService } from "../runtime/pipeline/pipeline-service.js";
import { OrchestratorEndpoint } from "./orchestrator/orchestrator-endpoint.js";
import { EventLog } from "../runtime/events/event-log.js";
import { ensureSandboxImage } from "../runtime/image/sandbox-image.js";
import { ExecStdioTransport } from "../runtime/mcp/exec-stdio-transport.js";
import { LowdbStateStore } from "../runtime/store/lowdb-store.js";
import { ResourceWatchdog } from "../runtime/workers/resource-watchdog.js";
import { createWorkers } from "../runtime/workers/create-workers.js";
import type { Workers } from "../runtime/workers/workers.js";
import { WorkerPool } from "../runtime/workers/worker-pool.js";
import { resolvePoolRepo, WorkerPools } from "../runtime/workers/worker-pools.js";
import { McpStandby } from "../runtime/workers/mcp-standby.js";
import { probeDiskImages } from "../runtime/workspace/disk-image.js";
import { createApp } from "./app.js";
import { createLogger, summarizeToolCall } from "./logger.js";
import { allowedHostHeaders } from "./middleware/guards.js";
import { ShellUpgrades } from "./shell-upgrade.js";
import { WorkerBridge } from "./mcp/worker-bridge.js";
import { loadOrCreateToken, type TokenSource } from "./token.js";
import { AUDIT_META_KEY, GATE_META_KEY } from "../contract/wire.js";

/** The project root (where Dockerfile.sandbox and tools/ live). */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function readToolReports(message: unknown): { gate: unknown; audit: unknown } {
  const meta = (message as { result?: { _meta?: Record<string, unknown> } }).result?._meta;
  return { gate: meta?.[GATE_META_KEY], audit: meta?.[AUDIT_META_KEY] };
}

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
  const runtimes = catalogOf(engine);
  assertConfiguredRuntime(config.runtime, runtimes);
  const defaultRuntime = chooseRuntime({
    configured: config.runtime,
    needs: runtimeNeedsOf(defaultPolicy()),
    catalog: runtimes,
  });
  const runtimeSummary = summarizeRuntimes(runtimes, config.runtime);
  if (defaultRuntime.runtime !== PREFERRED_RUNTIME) {
    logger.warn(
      `workers run under ${defaultRuntime.runtime}, not gVisor (${defaultRuntime.source === "configured" ? "WORKCELL_RUNTIME" : defaultRuntime.note}); scripts/ensure-docker.sh installs and registers runsc`,
    );
  }
  for (const exception of runtimeSummary.exceptions) logger.warn(exception);
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
  const disk =
    config.diskQuota === "watchdog"
      ? { available: false as const, reason: "WORKCELL_DISK_QUOTA=watchdog" }
      : await probeDiskImages(config.dataDir);
  if (disk.available)
    logger.info(
      "workspace disk limits are hard: each workspace is its own ext4 image of resources.diskMb (writes past it fail with ENOSPC)",
    );
  else
    log(
      `workspace disk limits are NOT hard: ${disk.reason}. New workers get a plain directory; the watchdog measures it every ${config.watchdogIntervalMs} ms and stops a worker over resources.diskMb, so a fast write can still fill the host disk first. Run the control plane as root with loop devices for hard limits.`,
    );
  // In-container MCP servers started with each container, for its first session.
  const standby = new McpStandby(driver);
  const poolDeps = {
    driver,
    dataDir: config.dataDir,
    instance,
    image,
    runtime: defaultRuntime.runtime,
    user,
    hostCpus: engine.cpus,
    log,
    diskImages: disk.available,
    standby,
  };
  const owner = user.uid !== hostUid ? user : undefined;
  const poolRepos = await Promise.all(
    config.poolRepos.map(async ({ repo, size }) => ({
      repo: await resolvePoolRepo(repo, "WORKCELL_POOL_REPOS"),
      size,
    })),
  );
  const pools = new WorkerPools(
    (size, repo) =>
      new WorkerPool({
        ...poolDeps,
        size,
        ...(repo === undefined ? {} : { repo }),
        ...(owner === undefined ? {} : { owner }),
      }),
    defaultRuntime.runtime,
    { emptySize: config.poolSize, repos: poolRepos },
  );
  const workers = createWorkers({
    config,
    store,
    driver,
    defaultImage: image,
    instance,
    sandboxUser: user,
    hostCpus: engine.cpus,
    chownWorkspaces: user.uid !== hostUid,
    diskImages: disk.available,
    pools,
    standby,
    hostEnv: options.hostEnv ?? {},
    runtimes,
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
  workers.permissions.setNetPrompter(async (workerId, target) => {
    const worker = await workers.lookup.get(workerId);
    try {
      const request = buildApprovalRequest(
        { kind: "permission", tool: "net", input: null, permission: { kind: "net", target } },
        { policy: worker.permissions, settings: worker.approvals, dataDir: config.dataDir },
      );
      const answer = await approvals.request(
        { workerId, ...request },
        worker.approvals,
        AbortSignal.timeout(worker.approvals.timeoutMs + 1_000),
      );
      return answer.decision !== "reject";
    } catch (error) {
      // A destination no grant could name, or a worker at its cap of waiting approvals: refused.
      log(`a net prompt of ${workerId} was refused: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  });
  const bridge = new WorkerBridge({
    openTransport: async (workerId) => new ExecStdioTransport(await workers.sessions.openMcpSession(workerId)),
    idleMs: config.sessionIdleMs,
    serverMethods: { elicitation: config.mcpElicitation, sampling: config.mcpSampling },
    maxBodyBytes: config.maxMcpBodyBytes,
    log,
    onActivity: (workerId) => workers.activity.touch(workerId),
    onAdmissionRequest: ({ workerId, signal, onPosition }) => admission.acquire(workerId, { signal, onPosition }),
    onApprovalRequest: async ({ workerId, sessionId, params, signal }) => {
      const worker = await workers.lookup.get(workerId);
      // The request comes from inside the sandbox: the host validates it and writes the reviewer's text itself.
      const request = buildApprovalRequest(params, {
        policy: worker.permissions,
        settings: worker.approvals,
        dataDir: config.dataDir,
      });
      return approvals.request(
        { workerId, ...(sessionId === undefined ? {} : { sessionId }), ...request },
        worker.approvals,
        signal,
      );
    },
    onToolCall: (call) => {
      const summary = summarizeToolCall(call.tool, call.args, call.result, call.durationMs);
      if (call.isError) logger.warn(summary, { worker: call.workerId });
      else logger.info(summary, { worker: call.workerId });
      logger.debug("tool call detail", {
        worker: call.workerId,
        session: call.sessionId,
        tool: call.tool,
        args: call.args,
        result: call.result,
      });
      const { workerId, ...data } = call;
      void events
        .append(workerId, "tool_call", data)
        .catch((error: unknown) => log(`recording a tool call failed: ${String(error)}`));
      if (call.errorCode === "permission_denied") {
        void events
          .append(workerId, "permission_denied", { tool: call.tool, sessionId: call.sessionId, message: call.result })
          .catch(() => undefined);
      }
    },
    onResponse: (workerId, message) => {
      const { gate, audit } = readToolReports(message);
      if (gate !== undefined)
        workers.tasks
          .recordGate(workerId, gate)
          .catch((error: unknown) => log(`recording the gate of ${workerId} failed: ${String(error)}`));
      if (Array.isArray(audit))
        workers.permissions
          .recordAudit(workerId, audit, "sandbox")
          .catch((error: unknown) => log(`recording the audit of ${workerId} failed: ${String(error)}`));
    },
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
  const server = await new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () => resolve(started));
    started.on(
      "upgrade",
      (request: IncomingMessage, socket: Duplex, head: Buffer) =>
        void shells.handle(request, socket, head, app.fetch).catch(() => socket.destroy()),
    );
    started.once("error", (error: NodeJS.ErrnoException) => {
      void bridge.closeAll();
      reject(
        error.code === "EADDRINUSE"
          ? new AppError(
              "conflict",
              `${config.host}:${config.port} is already in use. Stop what listens there, or choose another port with WORKCELL_PORT.`,
            )
          : error,
      );
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://${urlHost}:${port}`,
    token,
    tokenSource: source,
    tokenFile: file,
    image,
    runtime: runtimeSummary,
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
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}
