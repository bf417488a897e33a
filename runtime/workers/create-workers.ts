import path from "node:path";
import type { AdmissionQueue } from "../admission/admission-queue.js";
import { systemClock, type Clock } from "../clock/clock.js";
import type { Config } from "../config/config.js";
import type { ContainerDriver } from "../docker/container-driver.js";
import type { RuntimeCatalog } from "../docker/runtime-choice.js";
import type { EventLog } from "../events/event-log.js";
import type { StateStore } from "../store/state-store.js";
import { PROXY_SOCKET_NAME } from "../../contract/container.js";
import { McpServers, socketsOutsideGvisor } from "./mcp-servers.js";
import type { McpStandby } from "./mcp-standby.js";
import { PolicyEditor } from "./policy-editor.js";
import { SessionOpener } from "./session-opener.js";
import { TaskRecorder } from "./task-recorder.js";
import { ToolsChannels } from "./tools-channel.js";
import { WorkerEgress } from "./worker-egress.js";
import { WorkerLauncher } from "./worker-launcher.js";
import { LifecycleController } from "./worker-lifecycle.js";
import type { WorkerPools } from "./worker-pools.js";
import { WorkerReader } from "./worker-reader.js";
import { WorkerIds } from "./worker-ids.js";
import { WorkerRecords } from "./worker-records.js";
import type { Workers } from "./workers.js";

/** What the workers need from the outside world. */
export interface WorkersDeps {
  readonly config: Pick<Config, "dataDir" | "runtime">;
  readonly store: StateStore;
  readonly driver: ContainerDriver;
  /** The sandbox image workers use unless they ask for another. */
  readonly defaultImage: string;
  /** Identifies this control plane's containers (derived from the data dir). */
  readonly instance: string;
  readonly sandboxUser: { uid: number; gid: number };
  readonly hostCpus: number;
  /** Whether workspaces must be handed to the sandbox user (the control plane runs as another uid). */
  readonly chownWorkspaces: boolean;
  /** The control plane's own environment, source of env vars granted by name. */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** OCI runtimes the engine offers, and its default. */
  readonly runtimes: RuntimeCatalog;
  /** The audit trail. */
  readonly events: EventLog;
  /** The host-wide queue for heavy work (absent: unmetered). */
  readonly admission?: AdmissionQueue;
  /** Started containers ready to become default-policy workers (absent: always cold). */
  readonly pools?: WorkerPools;
  /** MCP servers started with each container for its first session (absent: sessions start their own). */
  readonly standby?: McpStandby;
  /** What starts the in-container MCP servers (absent: one over `driver`, shared with nothing). */
  readonly mcpServers?: McpServers;
  /** Whether each workspace gets its own filesystem image, making diskMb a hard limit (absent: the watchdog enforces it). */
  readonly diskImages?: boolean;
  /** Where the time comes from (absent: the system clock). */
  readonly clock?: Clock;
  /** Where worker ids come from, shared with the warm pools (absent: a source of its own). */
  readonly ids?: WorkerIds;
}

/** Builds every role over one set of workers, sharing one lock, store and event log. */
export function createWorkers(deps: WorkersDeps): Workers {
  const { driver, config, hostEnv, runtimes, standby } = deps;
  const records = new WorkerRecords(
    deps.store,
    deps.events,
    deps.clock ?? systemClock,
    config.dataDir,
    deps.ids ?? new WorkerIds(deps.store),
  );
  const channels = new ToolsChannels(driver);
  // The proxy records into the policy editor, made below: the editor needs the proxy first.
  let permissions: PolicyEditor | undefined;
  const egress = new WorkerEgress({
    driver,
    socketPath: (id) => path.join(records.runDir(id), PROXY_SOCKET_NAME),
    recordAudit: async (id, entries) => permissions?.recordAudit(id, entries, "host"),
  });
  const launcher = new WorkerLauncher({
    driver,
    records,
    egress,
    instance: deps.instance,
    sandboxUser: deps.sandboxUser,
    hostCpus: deps.hostCpus,
    configuredRuntime: config.runtime,
    runtimes,
    ...(standby === undefined ? {} : { standby }),
  });
  permissions = new PolicyEditor({ records, driver, launcher, egress, dataDir: config.dataDir, hostEnv });
  const lookup = new WorkerReader(records, driver);
  const lifecycle = new LifecycleController({
    records,
    driver,
    launcher,
    egress,
    channels,
    dataDir: config.dataDir,
    configuredRuntime: config.runtime,
    defaultImage: deps.defaultImage,
    instance: deps.instance,
    workspaceOwner: deps.chownWorkspaces ? deps.sandboxUser : undefined,
    hostEnv,
    runtimes,
    ...(deps.pools === undefined ? {} : { pools: deps.pools }),
    ...(standby === undefined ? {} : { standby }),
    ...(deps.diskImages === undefined ? {} : { diskImages: deps.diskImages }),
  });
  const sessions = new SessionOpener({
    records,
    lookup,
    permissions,
    driver,
    channels,
    dataDir: config.dataDir,
    hostEnv,
    sandboxUser: deps.sandboxUser,
    mcpServers: deps.mcpServers ?? new McpServers(driver, { sockets: socketsOutsideGvisor(runtimes) }),
    ...(deps.admission === undefined ? {} : { admission: deps.admission }),
    ...(standby === undefined ? {} : { standby }),
  });
  return {
    lookup,
    lifecycle,
    sessions,
    permissions,
    tasks: new TaskRecorder(records, driver),
    activity: records,
    secrets: () => [...records.secretValues],
  };
}
