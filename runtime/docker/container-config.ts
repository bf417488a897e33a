import type Docker from "dockerode";
import type { ContainerSpec, ContainerState } from "./container-driver.js";
import { seccompSecurityOpt } from "./seccomp-profile.js";

/** The engine's create request for a spec: every capability dropped, read-only root, no restarts. */
export function toCreateOptions(spec: ContainerSpec): Docker.ContainerCreateOptions {
  return {
    name: spec.name,
    Image: spec.image,
    User: spec.user,
    Env: [...spec.env],
    Labels: { ...spec.labels },
    WorkingDir: spec.workingDir,
    Cmd: [...spec.command],
    Tty: false,
    OpenStdin: false,
    HostConfig: {
      NetworkMode: spec.networkMode,
      CapDrop: ["ALL"],
      ...(spec.capAdd.length === 0 ? {} : { CapAdd: [...spec.capAdd] }),
      SecurityOpt: ["no-new-privileges:true", seccompSecurityOpt()],
      Privileged: false,
      ReadonlyRootfs: true,
      Init: true,
      IpcMode: "private",
      Mounts: spec.mounts.map((mount) =>
        mount.type === "tmpfs"
          ? {
              Type: "tmpfs" as const,
              Source: "",
              Target: mount.target,
              ReadOnly: true,
              TmpfsOptions: { SizeBytes: 4096, Mode: 0o555 },
            }
          : {
              Type: "bind" as const,
              Source: mount.source,
              Target: mount.target,
              ReadOnly: mount.readOnly,
              BindOptions: { Propagation: "rprivate" as const },
            },
      ),
      Tmpfs: { ...spec.tmpfs },
      Memory: spec.memoryMb * 1024 * 1024,
      MemorySwap: spec.memoryMb * 1024 * 1024,
      NanoCpus: Math.round(spec.cpus * 1e9),
      PidsLimit: spec.pids > 0 ? spec.pids : -1,
      ...(spec.maxUserProcesses === undefined
        ? {}
        : { Ulimits: [{ Name: "nproc", Soft: spec.maxUserProcesses, Hard: spec.maxUserProcesses }] }),
      LogConfig: { Type: "json-file", Config: { "max-size": String(spec.logMaxBytes), "max-file": "1" } },
      RestartPolicy: { Name: "no" },
      ...(spec.runtime === undefined ? {} : { Runtime: spec.runtime }),
    },
  };
}

/** A container's state from `docker inspect`. */
export function readInspectedState(data: Docker.ContainerInspectInfo): ContainerState {
  return {
    id: data.Id,
    name: data.Name.replace(/^\//, ""),
    running: data.State.Running,
    status: data.State.Status,
    exitCode: data.State.ExitCode,
    oomKilled: data.State.OOMKilled,
    labels: data.Config.Labels ?? {},
  };
}

/** A container's state from `docker ps`'s summary (which does not say whether it ran out of memory). */
export function readListedState(summary: Docker.ContainerInfo): ContainerState {
  return {
    id: summary.Id,
    name: (summary.Names[0] ?? "").replace(/^\//, ""),
    running: summary.State === "running",
    status: summary.State,
    exitCode: Number(/Exited \((\d+)\)/.exec(summary.Status)?.[1] ?? 0),
    oomKilled: false,
    labels: summary.Labels ?? {},
  };
}
