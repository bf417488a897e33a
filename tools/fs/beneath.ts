import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, readlink, rename, rm, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { isErrno, PathRefusedError, type ResolvedPath } from "./resolve-inside.js";

/** The resolved path relative to the root it was confined to ("" for the root). */
export function beneathRoot(resolved: ResolvedPath): string {
  return path.posix.relative(resolved.root, resolved.absolute);
}

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** The path of `name` inside an open directory, resolved by the kernel through the open descriptor. */
export function inside(directory: FileHandle, name: string): string {
  return `/proc/self/fd/${directory.fd}/${name}`;
}

function raced(relative: string): PathRefusedError {
  return new PathRefusedError(relative, "a part of the path was replaced by a symbolic link while it was being used; nothing was read or written — try again");
}

/** Where an open descriptor really is, by the kernel's account. */
function locationOf(handle: FileHandle): Promise<string> {
  return readlink(`/proc/self/fd/${handle.fd}`);
}

function isBeneath(location: string, rootReal: string): boolean {
  return location === rootReal || location.startsWith(rootReal === "/" ? "/" : `${rootReal}/`);
}

/**
 * Closes and refuses a descriptor that did not open beneath the root. Linux resolves
 * /proc/self/fd/N through the descriptor itself, but gVisor (runsc) may walk the directory's
 * path again and follow a symlink swapped in after the check; the descriptor's real
 * location tells.
 */
async function assertBeneath(handle: FileHandle, rootReal: string, relative: string): Promise<void> {
  const location = await locationOf(handle).catch(() => "");
  if (isBeneath(location, rootReal)) return;
  await handle.close().catch(() => undefined);
  throw raced(relative);
}

/**
 * Opens the directory `relative` beneath `root` one component at a time, each with
 * O_NOFOLLOW relative to the previous descriptor (openat emulated through /proc/self/fd),
 * so a directory swapped for a symlink after the path was checked is refused instead of
 * followed. With `create`, missing directories are made on the way.
 */
export async function openDirectoryBeneath(root: string, relative: string, options: { create?: boolean } = {}): Promise<FileHandle> {
  return (await openBeneath(root, relative, options)).directory;
}

/** openDirectoryBeneath, also answering the root's real location for later checks. */
async function openBeneath(root: string, relative: string, options: { create?: boolean }): Promise<{ directory: FileHandle; rootReal: string }> {
  // The root itself is trusted (a real path checked by the resolver, or an open descriptor's /proc path).
  let current = await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
  const rootReal = await locationOf(current).catch(async (error: unknown) => {
    await current.close();
    throw error;
  });
  try {
    for (const part of relative.split("/").filter((p) => p !== "" && p !== ".")) {
      if (part === "..") throw raced(relative);
      let next: FileHandle;
      try {
        next = await open(inside(current, part), DIRECTORY_FLAGS);
      } catch (error) {
        if (isErrno(error, "ENOENT") && options.create) {
          await mkdir(inside(current, part)).catch((mkdirError: unknown) => {
            if (!isErrno(mkdirError, "EEXIST")) throw mkdirError;
          });
          next = await open(inside(current, part), DIRECTORY_FLAGS).catch((retry: unknown) => {
            throw isErrno(retry, "ELOOP") || isErrno(retry, "ENOTDIR") ? raced(relative) : retry;
          });
        } else if (isErrno(error, "ELOOP") || (isErrno(error, "ENOTDIR") && (await isSymlink(inside(current, part))))) throw raced(relative);
        else throw error;
      }
      await assertBeneath(next, rootReal, relative);
      await current.close();
      current = next;
    }
    return { directory: current, rootReal };
  } catch (error) {
    await current.close().catch(() => undefined);
    throw error;
  }
}

async function isSymlink(target: string): Promise<boolean> {
  return lstat(target).then((stats) => stats.isSymbolicLink(), () => false);
}

/** Opens the file `relative` beneath `root` without following a symlink anywhere on the way. */
export async function openFileBeneath(root: string, relative: string, flags: number, mode?: number): Promise<FileHandle> {
  const { directory, rootReal } = await openBeneath(root, path.posix.dirname(relative), {});
  try {
    const file = await open(inside(directory, path.posix.basename(relative)), flags | constants.O_NOFOLLOW, mode).catch((error: unknown) => {
      throw isErrno(error, "ELOOP") ? raced(relative) : error;
    });
    await assertBeneath(file, rootReal, relative);
    return file;
  } finally {
    await directory.close();
  }
}

/**
 * Writes a file beneath `root` atomically (temporary file, then rename, both through the
 * parent's descriptor) without following any symlink: a write can only land where the
 * checked path was. Parents are created; an existing file keeps its mode.
 */
export async function writeFileBeneath(root: string, relative: string, content: string | Buffer): Promise<void> {
  const { directory, rootReal } = await openBeneath(root, path.posix.dirname(relative), { create: true });
  const name = path.posix.basename(relative);
  const temporary = `.${name}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    let mode = 0o644;
    try {
      const existing = await open(inside(directory, name), constants.O_RDONLY | constants.O_NOFOLLOW);
      mode = (await existing.stat()).mode & 0o7777;
      await existing.close();
    } catch (error) {
      if (isErrno(error, "ELOOP")) throw raced(relative);
      if (!isErrno(error, "ENOENT")) throw error;
    }
    const handle = await open(inside(directory, temporary), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    const location = await locationOf(handle).catch(() => "");
    if (!isBeneath(location, rootReal)) {
      // Made elsewhere through a swapped path (see assertBeneath): remove the empty file, refuse.
      await handle.close();
      if (location.startsWith("/")) await rm(location, { force: true }).catch(() => undefined);
      throw raced(relative);
    }
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
    await rename(inside(directory, temporary), inside(directory, name));
  } catch (error) {
    await rm(inside(directory, temporary), { force: true }).catch(() => undefined);
    throw error;
  } finally {
    await directory.close();
  }
}
