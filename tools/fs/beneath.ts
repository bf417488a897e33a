import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import path from "node:path";
import { pinnedRoot } from "./pinned-roots.js";
import { isErrno, PathRefusedError, type ResolvedPath } from "./resolve-inside.js";

/** The resolved path relative to the root it was confined to ("" for the root). */
export function beneathRoot(resolved: ResolvedPath): string {
  return path.posix.relative(resolved.root, resolved.absolute);
}

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * A descriptor opened beneath a root. The walk is made with synchronous calls: each is one
 * metadata operation, and under gVisor an asynchronous one (a thread-pool round trip) costs
 * several times as much, which a file tool pays once per path component.
 */
export class Descriptor {
  private open = true;

  /** `borrowed`: the descriptor belongs to someone else (a pinned root), and closing it does nothing. */
  constructor(
    readonly fd: number,
    private readonly borrowed = false,
  ) {}

  stat(): Stats {
    return fstatSync(this.fd);
  }

  /**
   * The file's text. Given the size a stat just told, it is read without asking again: one
   * call for a file that did not change. A short read is not taken for the end (gVisor's
   * file system may return one); a file that grew since the stat is read to its end.
   */
  readText(knownSize?: number): string {
    if (knownSize === undefined) return readFileSync(this.fd, "utf8");
    let buffer = Buffer.allocUnsafe(knownSize + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]);
      const read = readSync(this.fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      // At the size the stat told, the file is read (as readFileSync would have it); short of it, or past it, read on.
      if (length === knownSize) break;
    }
    return buffer.toString("utf8", 0, length);
  }

  /** Closes the descriptor (again: nothing happens). */
  async close(): Promise<void> {
    this.closeNow();
  }

  closeNow(): void {
    if (!this.open || this.borrowed) return;
    this.open = false;
    closeSync(this.fd);
  }
}

function openDescriptor(target: string, flags: number, mode?: number): Descriptor {
  return new Descriptor(openSync(target, flags, mode));
}

/** The path of `name` inside an open directory, resolved by the kernel through the open descriptor. */
export function inside(directory: { readonly fd: number }, name: string): string {
  return `/proc/self/fd/${directory.fd}/${name}`;
}

function raced(relative: string): PathRefusedError {
  return new PathRefusedError(
    relative,
    "a part of the path was replaced by a symbolic link while it was being used; nothing was read or written — try again",
  );
}

/** Where an open descriptor really is, by the kernel's account ("" when it cannot be told). */
function locationOf(handle: Descriptor): string {
  try {
    return readlinkSync(`/proc/self/fd/${handle.fd}`);
  } catch {
    return "";
  }
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
function assertBeneath(handle: Descriptor, rootReal: string, relative: string): void {
  if (isBeneath(locationOf(handle), rootReal)) return;
  handle.closeNow();
  throw raced(relative);
}

/**
 * Opens the directory `relative` beneath `root` one component at a time, each with
 * O_NOFOLLOW relative to the previous descriptor (openat emulated through /proc/self/fd),
 * so a directory swapped for a symlink after the path was checked is refused instead of
 * followed. With `create`, missing directories are made on the way.
 */
export async function openDirectoryBeneath(
  root: string,
  relative: string,
  options: { create?: boolean } = {},
): Promise<Descriptor> {
  return openBeneath(root, relative, options).directory;
}

/** openDirectoryBeneath, also answering the root's real location for later checks. */
function openBeneath(
  root: string,
  relative: string,
  options: { create?: boolean },
): { directory: Descriptor; rootReal: string } {
  // The root itself is trusted (a real path checked by the resolver, or an open descriptor's /proc path).
  const pinned = pinnedRoot(root);
  let current =
    pinned === undefined
      ? openDescriptor(root, constants.O_RDONLY | constants.O_DIRECTORY)
      : new Descriptor(pinned.fd, true);
  const rootReal = pinned?.real ?? locationOf(current);
  try {
    if (rootReal === "") throw new Error(`Cannot tell where ${root} is: /proc/self/fd is not readable`);
    for (const part of relative.split("/").filter((p) => p !== "" && p !== ".")) {
      if (part === "..") throw raced(relative);
      let next: Descriptor;
      try {
        next = openDescriptor(inside(current, part), DIRECTORY_FLAGS);
      } catch (error) {
        if (isErrno(error, "ENOENT") && options.create) {
          try {
            mkdirSync(inside(current, part));
          } catch (mkdirError) {
            if (!isErrno(mkdirError, "EEXIST")) throw mkdirError;
          }
          try {
            next = openDescriptor(inside(current, part), DIRECTORY_FLAGS);
          } catch (retry) {
            throw isErrno(retry, "ELOOP") || isErrno(retry, "ENOTDIR") ? raced(relative) : retry;
          }
        } else if (isErrno(error, "ELOOP") || (isErrno(error, "ENOTDIR") && isSymlink(inside(current, part))))
          throw raced(relative);
        else throw error;
      }
      assertBeneath(next, rootReal, relative);
      current.closeNow();
      current = next;
    }
    return { directory: current, rootReal };
  } catch (error) {
    current.closeNow();
    throw error;
  }
}

function isSymlink(target: string): boolean {
  try {
    return lstatSync(target).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Opens the file `relative` beneath `root` without following a symlink anywhere on the way. */
export async function openFileBeneath(
  root: string,
  relative: string,
  flags: number,
  mode?: number,
): Promise<Descriptor> {
  const { directory, rootReal } = openBeneath(root, path.posix.dirname(relative), {});
  try {
    let file: Descriptor;
    try {
      file = openDescriptor(inside(directory, path.posix.basename(relative)), flags | constants.O_NOFOLLOW, mode);
    } catch (error) {
      throw isErrno(error, "ELOOP") ? raced(relative) : error;
    }
    assertBeneath(file, rootReal, relative);
    return file;
  } finally {
    directory.closeNow();
  }
}

/**
 * Writes a file beneath `root` atomically (temporary file, then rename, both through the
 * parent's descriptor) without following any symlink: a write can only land where the
 * checked path was. Parents are created; an existing file keeps its mode.
 */
export async function writeFileBeneath(root: string, relative: string, content: string | Buffer): Promise<void> {
  const { directory, rootReal } = openBeneath(root, path.posix.dirname(relative), { create: true });
  const name = path.posix.basename(relative);
  const temporary = `.${name}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    let mode = 0o644;
    try {
      const existing = openDescriptor(inside(directory, name), constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        mode = existing.stat().mode & 0o7777;
      } finally {
        existing.closeNow();
      }
    } catch (error) {
      if (isErrno(error, "ELOOP")) throw raced(relative);
      if (!isErrno(error, "ENOENT")) throw error;
    }
    const handle = openDescriptor(
      inside(directory, temporary),
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      mode,
    );
    const location = locationOf(handle);
    if (!isBeneath(location, rootReal)) {
      // Made elsewhere through a swapped path (see assertBeneath): remove the empty file, refuse.
      handle.closeNow();
      if (location.startsWith("/")) rmSync(location, { force: true });
      throw raced(relative);
    }
    try {
      writeFileSync(handle.fd, content);
    } finally {
      handle.closeNow();
    }
    renameSync(inside(directory, temporary), inside(directory, name));
  } catch (error) {
    try {
      rmSync(inside(directory, temporary), { force: true });
    } catch {
      // Nothing to remove, or the directory went away: the error below says what failed.
    }
    throw error;
  } finally {
    directory.closeNow();
  }
}
