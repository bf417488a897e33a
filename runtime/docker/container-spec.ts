import { DEFAULT_RESOURCES } from "../config/config.js";
import type { Worker } from "../workers/worker.js";
import type { ContainerSpec } from "./container-driver.js";

/** Labels every workcell container carries, so a restarted control plane finds its own. */
export const LABEL_MANAGED = "dev.workcell.managed";
export const LABEL_WORKER = "dev.workcell.worker";
export const LABEL_INSTANCE = "dev.workcell.instance";

/** The path the workspace is mounted at inside every container. */
export const CONTAINER_WORKSPACE = "/workspace";
const CONTAINER_HOME = "/home/agent";
const HOME_TMPFS_MB = 256;
const LOG_MAX_BYTES = 1024 * 1024;

/** The uid:gid the sandbox runs as: the host user, or 1000 when the control plane is root. */
export function sandboxUser(hostUid: number, hostGid: number): { uid: number; gid: number } {
  return hostUid === 0 ? { uid: 1000, gid: 1000 } : { uid: hostUid, gid: hostGid };
}

/**
 * The hardened container for a worker: no network, no capabilities, read-only root with
 * size-capped tmpfs scratch, non-root, init, resource limits, labels, and no host path but
 * the workspace (rw) and the borrowed object directories (ro, at the same path).
 */
export function buildContainerSpec(
  worker: Worker,
  options: { instance: string; user: { uid: number; gid: number }; hostCpus: number },
): ContainerSpec {
  const cpus = Math.min(worker.resources.cpus, options.hostCpus);
  return {
    name: containerName(worker.id),
    image: worker.image,
    user: `${options.user.uid}:${options.user.gid}`,
    env: [
      `HOME=${CONTAINER_HOME}`,
      `WORKCELL_WORKER_ID=${worker.id}`,
      ...Object.entries(worker.env).map(([name, value]) => `${name}=${value}`),
    ],
    labels: { [LABEL_MANAGED]: "true", [LABEL_WORKER]: worker.id, [LABEL_INSTANCE]: options.instance },
    workingDir: CONTAINER_WORKSPACE,
    command: ["sleep", "infinity"],
    mounts: [
      { source: worker.workspace, target: CONTAINER_WORKSPACE, readOnly: false },
      ...worker.objectDirs.map((dir) => ({ source: dir, target: dir, readOnly: true })),
    ],
    tmpfs: {
      "/tmp": `rw,nosuid,nodev,exec,mode=1777,size=${worker.resources.tmpMb}m`,
      [CONTAINER_HOME]: `rw,nosuid,nodev,exec,mode=1777,size=${HOME_TMPFS_MB}m`,
    },
    networkMode: "none",
    memoryMb: worker.resources.memoryMb,
    cpus,
    pids: worker.resources.pids,
    logMaxBytes: LOG_MAX_BYTES,
  };
}

/** Resource limits with defaults filled in. */
export function resolveResources(requested: Partial<typeof DEFAULT_RESOURCES> | undefined): Worker["resources"] {
  return { ...DEFAULT_RESOURCES, ...requested };
}

/** The container name of a worker. */
export function containerName(workerId: string): string {
  return `workcell-${workerId}`;
}
