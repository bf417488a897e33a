import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error.js";
import { findEngineSockets } from "../permissions/engine-sockets.js";
import { denyOverlays, isInside, mountsFor, type Policy } from "../permissions/policy.js";

/** A host path the container binds (or overlays), with the inode it was when the grant was accepted. */
export interface BindSource {
  readonly path: string;
  readonly dev: string;
  readonly ino: string;
}

/** Every host path a policy makes Docker resolve: mount sources, read-only overlays and hidden paths, with the policy field each comes from. */
export function bindSourcePaths(policy: Policy): { path: string; field: string; required: boolean }[] {
  const overlays = denyOverlays(policy);
  return [
    ...mountsFor(policy).map((mount) => ({
      path: mount.source,
      field: mount.readOnly ? "read" : "write",
      required: true,
    })),
    ...overlays.readOnly.map((dir) => ({ path: dir, field: "deny.write", required: false })),
    ...overlays.hidden.map((dir) => ({ path: dir, field: "deny.read", required: false })),
  ];
}

/** The first symlink among the components of `target` (lstat walk from "/"), or the final stats; undefined when a component is missing. */
async function walkWithoutSymlinks(
  target: string,
): Promise<{ symlink: string } | { stats: { dev: bigint; ino: bigint } } | undefined> {
  let current = "/";
  let stats = await lstat(current, { bigint: true });
  for (const part of target.split("/").filter((segment) => segment !== "")) {
    current = path.join(current, part);
    const next = await lstat(current, { bigint: true }).catch(() => undefined);
    if (next === undefined) return undefined;
    if (next.isSymbolicLink()) return { symlink: current };
    stats = next;
  }
  return { stats };
}

/** What a pair of identities says: the same inode, or why not. Pure. */
export function compareIdentity(
  recorded: BindSource,
  found: { dev: string; ino: string } | undefined,
): string | undefined {
  if (found === undefined) return "is gone";
  if (recorded.dev !== found.dev || recorded.ino !== found.ino)
    return "is no longer the directory or file that was granted (it was replaced)";
  return undefined;
}

/**
 * Admits the host paths of a policy and records what each is. Refuses (400 naming the
 * field) a grant whose real tree holds a container engine socket, and any bind source that
 * goes through a symlink (Docker would follow it at every start). `previous` records are
 * kept for paths they already cover, so a re-grant never blesses a path swapped since.
 */
export async function admitBindSources(
  policy: Policy,
  env: Readonly<Record<string, string | undefined>>,
  previous: readonly BindSource[] = [],
): Promise<BindSource[]> {
  const sockets = await findEngineSockets(env);
  const recorded: BindSource[] = [];
  for (const source of bindSourcePaths(policy)) {
    const real = await realpath(source.path).catch(() => undefined);
    if (real === undefined) continue;
    const socket = sockets.find((candidate) => isInside(candidate, real));
    if (socket !== undefined) {
      throw new AppError(
        "invalid_input",
        `permissions.${source.field}: "${source.path}" contains the container engine socket ${socket}; mounting it would give the worker the host. Grant a directory that holds no engine socket.`,
        {
          details: { field: `permissions.${source.field}` },
        },
      );
    }
    const walked = await walkWithoutSymlinks(source.path);
    if (walked !== undefined && "symlink" in walked) {
      throw new AppError(
        "invalid_input",
        `permissions.${source.field}: "${source.path}" goes through the symlink ${walked.symlink}; Docker would follow it at every start. Grant the real path ${real} instead.`,
        {
          details: { field: `permissions.${source.field}` },
        },
      );
    }
    const kept = previous.find((entry) => entry.path === source.path);
    if (kept !== undefined) recorded.push(kept);
    else if (walked !== undefined)
      recorded.push({ path: source.path, dev: String(walked.stats.dev), ino: String(walked.stats.ino) });
  }
  return recorded;
}

/**
 * Checks, right before a container is created or started, that every bind source is still
 * what was granted: no symlink in any component, and the same inode as recorded. Throws a
 * 409 naming the path otherwise (nothing is started).
 */
export async function verifyBindSources(
  workerId: string,
  policy: Policy,
  recorded: readonly BindSource[] | undefined,
): Promise<void> {
  for (const source of bindSourcePaths(policy)) {
    const walked = await walkWithoutSymlinks(source.path);
    const refuse = (why: string) =>
      new AppError(
        "conflict",
        `Worker ${workerId} was not started: the bind source ${source.path} (permissions.${source.field}) ${why}. Something changed it since it was granted; inspect it on the host, then restore it or remove it from the worker's permissions.`,
        {
          details: { path: source.path, field: `permissions.${source.field}` },
        },
      );
    if (walked !== undefined && "symlink" in walked) throw refuse(`goes through the symlink ${walked.symlink}`);
    const entry = recorded?.find((candidate) => candidate.path === source.path);
    if (entry === undefined) {
      if (walked === undefined && source.required) throw refuse("is gone");
      continue;
    }
    const why = compareIdentity(
      entry,
      walked === undefined ? undefined : { dev: String(walked.stats.dev), ino: String(walked.stats.ino) },
    );
    if (why !== undefined) throw refuse(why);
  }
}
