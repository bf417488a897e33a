import { lstatSync, readlinkSync } from "node:fs";
import path from "node:path";
import { realRoot as realRootOf } from "./pinned-roots.js";

/** Why a path was refused; carried so tools can answer the agent precisely. */
export class PathRefusedError extends Error {
  override readonly name = "PathRefusedError";
  constructor(
    readonly requested: string,
    readonly reason: string,
  ) {
    super(`Path "${printable(requested)}" refused: ${reason}`);
  }
}

/** The outcome of resolving a requested path inside a root. */
export interface ResolvedPath {
  /** Absolute path with every existing symlink resolved; inside the root. */
  readonly absolute: string;
  /** The same path relative to the root ("" for the root itself). */
  readonly relative: string;
  /** Whether the final component exists. */
  readonly exists: boolean;
  /** The real root the path was confined to; `absolute` lies beneath it. */
  readonly root: string;
}

const MAX_SYMLINK_HOPS = 40;

/**
 * Resolves `requested` (relative to `root`, or absolute inside it) to a real path that is
 * guaranteed to lie inside `root`, following symlinks one component at a time the way the
 * kernel does, and refusing as soon as any step — a `..`, an absolute or relative link
 * target, a link in a parent — would leave the root. Paths that do not exist yet resolve
 * to their real parent plus the missing components, so writes under a symlinked parent
 * are checked too. The file system is asked synchronously: each call is a few metadata
 * lookups, and under gVisor an asynchronous one costs several times a synchronous one.
 */
export async function resolveInside(root: string, requested: string): Promise<ResolvedPath> {
  if (typeof requested !== "string" || requested.length === 0) {
    throw new PathRefusedError(String(requested), "expected a non-empty path relative to the workspace");
  }
  if (requested.includes("\0")) {
    throw new PathRefusedError(requested, "the path contains a NUL byte");
  }
  const realRoot = realRootOf(root);
  const pending = splitComponents(toRootRelative(root, realRoot, requested));
  let current = realRoot;
  let hops = 0;
  let exists = true;

  while (pending.length > 0) {
    const component = pending.shift() as string;
    if (component === "." || component === "") continue;
    if (component === "..") {
      current = path.dirname(current);
      assertInside(realRoot, current, requested, "it climbs above the workspace with '..'");
      continue;
    }
    const next = path.join(current, component);
    if (!exists) {
      current = next;
      continue;
    }
    const stats = lstatOrUndefined(next);
    if (stats === undefined) {
      exists = false;
      current = next;
      continue;
    }
    if (!stats.isSymbolicLink()) {
      current = next;
      continue;
    }
    hops += 1;
    if (hops > MAX_SYMLINK_HOPS) {
      throw new PathRefusedError(requested, `more than ${MAX_SYMLINK_HOPS} symbolic links in a chain`);
    }
    const target = readlinkSync(next);
    if (path.isAbsolute(target)) {
      const inside = relativeIfInside(realRoot, target) ?? relativeIfInside(root, target);
      if (inside === undefined) {
        throw new PathRefusedError(
          requested,
          `"${path.relative(realRoot, next)}" is a symbolic link to "${target}", outside the workspace`,
        );
      }
      current = realRoot;
      pending.unshift(...splitComponents(inside));
    } else {
      pending.unshift(...splitComponents(target));
    }
  }
  assertInside(realRoot, current, requested, "it leaves the workspace");
  return { absolute: current, relative: path.relative(realRoot, current), exists, root: realRoot };
}

function toRootRelative(root: string, realRoot: string, requested: string): string {
  if (!path.isAbsolute(requested)) return requested;
  const inside = relativeIfInside(root, requested) ?? relativeIfInside(realRoot, requested);
  if (inside === undefined) {
    throw new PathRefusedError(
      requested,
      `absolute paths must be inside ${root}; use a path relative to the workspace instead`,
    );
  }
  return inside;
}

/** The path of `candidate` relative to `root` if it lies lexically inside it, else undefined. */
function relativeIfInside(root: string, candidate: string): string | undefined {
  const normalized = path.resolve(candidate);
  if (normalized === root) return ".";
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return normalized.startsWith(prefix) ? normalized.slice(prefix.length) : undefined;
}

function assertInside(realRoot: string, candidate: string, requested: string, reason: string): void {
  if (realRoot !== "/" && candidate !== realRoot && !candidate.startsWith(`${realRoot}/`)) {
    throw new PathRefusedError(requested, reason);
  }
}

function splitComponents(value: string): string[] {
  return value.split("/").filter((part) => part.length > 0);
}

function lstatOrUndefined(target: string) {
  try {
    return lstatSync(target);
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return undefined;
    throw error;
  }
}

/** True when `error` is a Node system error with the given code. */
export function isErrno(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

function printable(value: string): string {
  return value.replaceAll("\0", "\\0");
}
