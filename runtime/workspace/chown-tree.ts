import { lchown, lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error.js";

const CHOWN_BATCH = 256;

/** What chownTree needs to know about one entry (a subset of fs.Stats). */
export interface TreeEntryStats {
  readonly dev: number;
  readonly nlink: number;
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
}

/**
 * Why an entry of a fresh workspace must not be handed to the sandbox user, or undefined
 * when it may. Only inodes the clone created for this workspace qualify: on the workspace's
 * own filesystem (`rootDev`), and for regular files not linked from anywhere else (a
 * hardlinked file shares its inode with the source repository). Symlinks qualify (lchown
 * changes the link, never its target). Pure.
 */
export function refuseForeignEntry(entry: TreeEntryStats, rootDev: number): string | undefined {
  if (entry.dev !== rootDev) return "is on another filesystem than the workspace (a mount or a foreign tree)";
  if (entry.isFile() && entry.nlink !== 1)
    return `has ${entry.nlink} hard links, so its inode is shared with a file outside the workspace`;
  return undefined;
}

/**
 * Hands a freshly made tree to the sandbox user (needed when the control plane runs as
 * root). Walks with lstat and never follows a symlink; refuses, before changing anything,
 * an entry on another filesystem or a regular file with more than one link, because
 * chowning such an inode would give the sandbox a file that is not the workspace's own.
 */
export async function chownTree(root: string, uid: number, gid: number): Promise<void> {
  const rootStats = await lstat(root);
  if (!rootStats.isDirectory())
    throw new AppError(
      "internal",
      `Cannot hand ${root} to the sandbox user: expected a directory, found something else (a symlink?). Remove the worker and create it again.`,
    );
  const owned: string[] = [root];
  const pending: string[] = [root];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const parent = dir;
    const entries = await Promise.all(
      (await readdir(parent)).map(async (name) => ({
        entry: path.join(parent, name),
        stats: await lstat(path.join(parent, name)),
      })),
    );
    for (const { entry, stats } of entries) {
      const reason = refuseForeignEntry(stats, rootStats.dev);
      if (reason !== undefined) {
        throw new AppError(
          "internal",
          `Refusing to hand ${entry} to the sandbox user: it ${reason}. Expected only files the clone created for this workspace; nothing was chowned.`,
        );
      }
      owned.push(entry);
      if (stats.isDirectory()) pending.push(entry);
    }
  }
  for (let start = 0; start < owned.length; start += CHOWN_BATCH) {
    await Promise.all(owned.slice(start, start + CHOWN_BATCH).map((entry) => lchown(entry, uid, gid)));
  }
}
