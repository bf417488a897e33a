import { createHash } from "node:crypto";
import { DEFAULT_RESOURCES } from "../config/config.js";
import { denyOverlays, mountsFor, type Policy } from "../permissions/policy.js";
import { asSandboxUser, forwarderArgv, TOOLS_EXEC } from "../workers/in-container.js";
import type { Worker } from "../workers/worker.js";
import type { ContainerMount, ContainerSpec } from "./container-driver.js";
import { CONTAINER_RUN_DIR, CONTAINER_WORKSPACE, SANDBOX_USER_VAR } from "../../contract/container.js";

/** Labels every workcell container carries, so a restarted control plane finds its own. */
export const LABEL_MANAGED = "dev.workcell.managed";
export const LABEL_WORKER = "dev.workcell.worker";
export const LABEL_INSTANCE = "dev.workcell.instance";
export const LABEL_SPEC = "dev.workcell.spec";

const CONTAINER_HOME = "/home/agent";
const HOME_TMPFS_MB = 256;
const LOG_MAX_BYTES = 1024 * 1024;

/** The uid:gid the sandbox runs as: the host user, or 1000 when the control plane is root. */
export function sandboxUser(hostUid: number, hostGid: number): { uid: number; gid: number } {
  return hostUid === 0 ? { uid: 1000, gid: 1000 } : { uid: hostUid, gid: hostGid };
}

/** The in-container forwarder's address, which the proxy variables point at. */
const PROXY_URL = "http://127.0.0.1:3128";

/** Whether a worker's traffic goes through the egress proxy (a host list, or audit mode without full network). */
export function usesEgressProxy(policy: Policy): boolean {
  return Array.isArray(policy.net) || ((policy.mode === "audit" || policy.prompt) && policy.net !== true);
}

/** Host facts the spec needs: what each hidden path is, found by the caller. */
export interface SpecOptions {
  instance: string;
  user: { uid: number; gid: number };
  hostCpus: number;
  /** The worker's control directory on the host, mounted read-only at /run/workcell. */
  runDir: string;
  /** Denied paths inside mounted grants, with whether each is a directory on the host. */
  hidden: readonly { path: string; directory: boolean }[];
}

/**
 * The capabilities a container keeps: only what its root needs to start processes as the
 * sandbox user (switch ids, and empty their bounding set first). No process of the sandbox
 * user holds any of them, even in its bounding set (see asSandboxUser).
 */
export const CONTAINER_CAPABILITIES = ["SETUID", "SETGID", "SETPCAP"] as const;

/**
 * The hardened container for a worker: no capability but CONTAINER_CAPABILITIES, held by its
 * root only; a main command and every agent command as the non-root sandbox user; read-only
 * root with size-capped tmpfs scratch, init, resource limits, labels; network only as the policy grants
 * (none, the egress proxy through a mounted socket, or bridged); and no host path but the
 * workspace, the borrowed object directories (ro), the granted paths, and the control dir (ro).
 */
export function buildContainerSpec(worker: Worker, options: SpecOptions): ContainerSpec {
  const policy = worker.permissions;
  const proxied = usesEgressProxy(policy);
  const overlays = denyOverlays(policy);
  const mounts: ContainerMount[] = [
    { source: worker.workspace, target: CONTAINER_WORKSPACE, readOnly: false },
    ...worker.objectDirs.map((dir) => ({ source: dir, target: dir, readOnly: true })),
    ...mountsFor(policy).map((mount) => ({ source: mount.source, target: mount.source, readOnly: mount.readOnly })),
    ...overlays.readOnly.map((dir) => ({ source: dir, target: dir, readOnly: true })),
    ...options.hidden.map((entry): ContainerMount =>
      entry.directory
        ? { type: "tmpfs", target: entry.path, readOnly: true }
        : { source: "/dev/null", target: entry.path, readOnly: true },
    ),
    { source: options.runDir, target: CONTAINER_RUN_DIR, readOnly: true },
  ];
  const proxyEnv = proxied
    ? ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"].map((name) => `${name}=${PROXY_URL}`)
    : [];
  const spec: ContainerSpec = {
    name: containerName(worker.id),
    image: worker.image,
    // Root with only CONTAINER_CAPABILITIES, so that workcell's own programs can keep an
    // identity the sandbox user cannot reach; the main command drops to the sandbox user.
    user: TOOLS_EXEC.user,
    capAdd: CONTAINER_CAPABILITIES,
    env: [
      `HOME=${CONTAINER_HOME}`,
      `WORKCELL_WORKER_ID=${worker.id}`,
      ...proxyEnv,
      ...Object.entries(worker.env).map(([name, value]) => `${name}=${value}`),
      // Last, so that nothing before it can name another user.
      `${SANDBOX_USER_VAR}=${options.user.uid}:${options.user.gid}`,
    ],
    labels: { [LABEL_MANAGED]: "true", [LABEL_WORKER]: worker.id, [LABEL_INSTANCE]: options.instance },
    workingDir: CONTAINER_WORKSPACE,
    command: asSandboxUser(options.user, proxied ? forwarderArgv() : ["sleep", "infinity"]),
    mounts,
    tmpfs: {
      "/tmp": `rw,nosuid,nodev,exec,mode=1777,size=${worker.resources.tmpMb}m`,
      // Owned by the sandbox user: runc leaves a tmpfs root-owned 0755 whatever `mode` says.
      [CONTAINER_HOME]: `rw,nosuid,nodev,exec,uid=${options.user.uid},gid=${options.user.gid},mode=0700,size=${HOME_TMPFS_MB}m`,
    },
    networkMode: policy.net === true ? "bridge" : "none",
    memoryMb: worker.resources.memoryMb,
    cpus: Math.min(worker.resources.cpus, options.hostCpus),
    // Under gVisor (runsc 20221219) a fork bomb that meets the engine's PID limit crashes
    // gVisor's kernel, ending the worker; RLIMIT_NPROC, which gVisor enforces per sandbox,
    // caps the sandbox's processes instead and the fork just fails. gVisor's own host
    // threads stay few (about a hundred under a fork bomb), so no engine limit is set.
    ...(worker.runtime === "runsc"
      ? { pids: 0, maxUserProcesses: worker.resources.pids }
      : { pids: worker.resources.pids }),
    logMaxBytes: LOG_MAX_BYTES,
    ...(worker.runtime === undefined ? {} : { runtime: worker.runtime }),
  };
  return { ...spec, labels: { ...spec.labels, [LABEL_SPEC]: specHash(spec) } };
}

/** A short hash of a spec: a container whose label differs was made from another policy. */
export function specHash(spec: ContainerSpec): string {
  return createHash("sha256")
    .update(JSON.stringify({ ...spec, labels: { ...spec.labels, [LABEL_SPEC]: "" } }))
    .digest("hex")
    .slice(0, 16);
}

/** Resource limits with defaults filled in. */
export function resolveResources(requested: Partial<Worker["resources"]> | undefined): Worker["resources"] {
  return { ...DEFAULT_RESOURCES, ...requested };
}

/** The container name of a worker. */
export function containerName(workerId: string): string {
  return `workcell-${workerId}`;
}
