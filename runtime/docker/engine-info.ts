import type Docker from "dockerode";
import type { EngineInfo } from "./container-driver.js";

/** The parts of `docker info`'s answer workcell reads. */
interface DockerInfoAnswer {
  readonly OperatingSystem?: unknown;
  readonly Containers?: unknown;
  readonly NCPU?: unknown;
  readonly MemTotal?: unknown;
  readonly Runtimes?: unknown;
  readonly DefaultRuntime?: unknown;
  readonly RuncCommit?: { ID?: string };
}

/** Each registered runtime's binary and arguments, from `docker info`'s Runtimes. */
function readRuntimeDetails(runtimes: unknown): Record<string, { path: string; args: string[] }> {
  const entries = Object.entries((runtimes ?? {}) as Record<string, { path?: unknown; runtimeArgs?: unknown } | null>);
  return Object.fromEntries(
    entries.map(([name, entry]) => [
      name,
      {
        path: typeof entry?.path === "string" ? entry.path : name,
        args: Array.isArray(entry?.runtimeArgs) ? entry.runtimeArgs.map(String) : [],
      },
    ]),
  );
}

/** The engine facts workcell reports, read from `docker info` and `docker version`. */
export function readEngineInfo(info: DockerInfoAnswer, version: Docker.DockerVersion): EngineInfo {
  return {
    serverVersion: String(version.Version),
    apiVersion: String(version.ApiVersion),
    os: String(info.OperatingSystem ?? ""),
    containers: Number(info.Containers ?? 0),
    cpus: Number(info.NCPU ?? 1),
    memoryBytes: Number(info.MemTotal ?? 0),
    runtimes: Object.keys((info.Runtimes as Record<string, unknown> | undefined) ?? {}),
    runtimeDetails: readRuntimeDetails(info.Runtimes),
    ...(typeof info.DefaultRuntime === "string" ? { defaultRuntime: info.DefaultRuntime } : {}),
    runcVersion: info.RuncCommit?.ID,
  };
}
