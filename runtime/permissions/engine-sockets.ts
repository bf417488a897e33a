import { readFile, realpath } from "node:fs/promises";

/** Where container engines usually listen (checked whether or not the engine runs). */
export const KNOWN_ENGINE_SOCKETS: readonly string[] = [
  "/run/docker.sock",
  "/var/run/docker.sock",
  "/run/containerd/containerd.sock",
  "/var/run/containerd/containerd.sock",
  "/run/docker/containerd/containerd.sock",
  "/run/podman/podman.sock",
  "/var/run/podman/podman.sock",
  "/run/crio/crio.sock",
  "/var/run/crio/crio.sock",
  "/run/buildkit/buildkitd.sock",
  "/var/run/buildkit/buildkitd.sock",
  "/run/cri-dockerd.sock",
];

const ENGINE_NAME = /docker|containerd|podman|crio|buildkit|dockershim|libpod/i;

/** Whether a unix socket path names a container engine (docker, containerd, podman, cri-o, buildkit). Pure. */
export function isEngineSocketName(socketPath: string): boolean {
  return ENGINE_NAME.test(socketPath);
}

/** Bound unix socket paths listed in the text of /proc/net/unix (abstract sockets left out). Pure. */
export function parseUnixSocketPaths(procNetUnix: string): string[] {
  const paths = new Set<string>();
  for (const line of procNetUnix.split("\n").slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path — the path is the 8th field and may hold spaces.
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8) continue;
    const socketPath = fields.slice(7).join(" ");
    if (socketPath.startsWith("/")) paths.add(socketPath);
  }
  return [...paths];
}

/** The unix socket path of a DOCKER_HOST value (`unix:///path`), or undefined for tcp/ssh/none. Pure. */
export function dockerHostSocket(dockerHost: string | undefined): string | undefined {
  if (dockerHost === undefined || !dockerHost.startsWith("unix://")) return undefined;
  const socketPath = dockerHost.slice("unix://".length);
  return socketPath.startsWith("/") ? socketPath : undefined;
}

/**
 * The real paths of every container engine socket this host has: the known locations, the
 * unix path of DOCKER_HOST, and the bound sockets in /proc/net/unix whose path names an
 * engine. Paths that do not exist are left out; every one is resolved with realpath.
 */
export async function findEngineSockets(env: Readonly<Record<string, string | undefined>>): Promise<string[]> {
  const listed = await readFile("/proc/net/unix", "utf8").then(parseUnixSocketPaths, () => []);
  const candidates = [...KNOWN_ENGINE_SOCKETS, ...listed.filter(isEngineSocketName)];
  const fromEnv = dockerHostSocket(env.DOCKER_HOST);
  if (fromEnv !== undefined) candidates.push(fromEnv);
  const real = await Promise.all(
    [...new Set(candidates)].map((candidate) => realpath(candidate).catch(() => undefined)),
  );
  return [...new Set(real.filter((found): found is string => found !== undefined))];
}
