import {
  access,
  chmod,
  constants,
  lstat,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  rmdir,
  stat,
  statfs,
} from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { AppError } from "../errors/app-error.js";
import {
  buildMkfsArgs,
  imagePathOf,
  keptImagePathOf,
  keptPathOf,
  MOUNT_OPTIONS,
  planDiskImage,
  rateDiskUsage,
  type DiskUsage,
} from "./disk-image-plan.js";
import { removeTree } from "./remove-tree.js";

const COMMAND_TIMEOUT_MS = 60_000;
const COPY_TIMEOUT_MS = 30 * 60_000;
const PROBE_DISK_MB = 16;

/** Whether this host can give workspaces their own filesystem image, and if not, why. */
export type DiskImageSupport = { readonly available: true } | { readonly available: false; readonly reason: string };

/** Runs one of the tools that make and check images, saying how it ended. */
export async function runImageTool(program: string, args: readonly string[], timeoutMs = COMMAND_TIMEOUT_MS) {
  const result = await execa(program, args, { reject: false, timeout: timeoutMs, all: true, stdin: "ignore" });
  // How it ended, for messages: without an exit code, the deadline, a signal, or a program that could not start.
  const ended =
    result.exitCode !== undefined
      ? `exited ${result.exitCode}`
      : result.timedOut
        ? `was killed after ${timeoutMs} ms`
        : result.signal !== undefined
          ? `was killed by ${result.signal}`
          : `could not start: ${(result as { code?: string }).code ?? result.shortMessage}`;
  return { ok: result.exitCode === 0, exitCode: result.exitCode, ended, output: String(result.all ?? "").trim() };
}

/** Whether `dir` is the root of a mounted filesystem (its device differs from its parent's). */
export async function isMountPoint(dir: string): Promise<boolean> {
  const [own, parent] = await Promise.all([
    stat(dir).catch(() => undefined),
    stat(path.dirname(dir)).catch(() => undefined),
  ]);
  return own !== undefined && parent !== undefined && own.dev !== parent.dev;
}

/** Whether `workspace` has a filesystem image beside it. */
export async function hasDiskImage(workspace: string): Promise<boolean> {
  return access(imagePathOf(workspace), constants.F_OK).then(
    () => true,
    () => false,
  );
}

/**
 * Formats a sparse ext4 image of `diskMb` beside `workspace` and mounts it there
 * (nosuid, nodev), empty and owned by the control plane with mode 0700. The directory
 * under the mount stays root-only, so a container that somehow got it instead of the
 * image could write nothing. On failure nothing is left behind.
 */
export async function createDiskImage(workspace: string, diskMb: number): Promise<void> {
  const plan = planDiskImage(diskMb);
  const image = imagePathOf(workspace);
  await mkdir(path.dirname(workspace), { recursive: true, mode: 0o700 });
  // "wx": an image already there (another worker's, a leftover) is refused, never reused or deleted.
  const file = await open(image, "wx", 0o600);
  try {
    await file.truncate(plan.sizeBytes).finally(() => file.close());
    const mkfs = await runImageTool("mkfs.ext4", buildMkfsArgs(image, plan));
    if (!mkfs.ok)
      throw new AppError(
        "internal",
        `Could not format the workspace image ${image} (mkfs.ext4 ${mkfs.ended}): ${mkfs.output}`,
      );
    await mkdir(workspace, { mode: 0o700 });
    await mountImage(image, workspace);
    // ext4 does not need lost+found to work; left there it would be a root-only directory in the agent's tree.
    await rmdir(path.join(workspace, "lost+found"));
    await chmod(workspace, 0o700);
  } catch (error) {
    await unmountWorkspace(workspace).catch(() => undefined);
    await rm(workspace, { recursive: true, force: true }).catch(() => undefined);
    await rm(image, { force: true });
    throw error;
  }
}

/**
 * Makes sure the workspace's image is mounted at the workspace (after a reboot, or if
 * someone unmounted it), checking the filesystem first. Returns false when the
 * workspace has no image (a plain directory).
 */
export async function mountDiskImage(workspace: string): Promise<boolean> {
  if (!(await hasDiskImage(workspace))) return false;
  if (await isMountPoint(workspace)) return true;
  const image = imagePathOf(workspace);
  const check = await runImageTool("e2fsck", ["-p", image], COPY_TIMEOUT_MS);
  // 0: clean, 1: errors corrected. Anything else needs a person.
  if (check.exitCode !== 0 && check.exitCode !== 1) {
    throw new AppError(
      "internal",
      `The workspace image ${image} has filesystem errors e2fsck -p could not fix (e2fsck ${check.ended}): ${check.output.slice(0, 500)}. Run "e2fsck -f ${image}" as root, then start the worker again.`,
    );
  }
  await mkdir(workspace, { recursive: true, mode: 0o700 });
  await mountImage(image, workspace);
  // e2fsck recreates lost+found when it repaired something; an empty one is not the agent's to see.
  await rmdir(path.join(workspace, "lost+found")).catch(() => undefined);
  return true;
}

async function mountImage(image: string, workspace: string): Promise<void> {
  // util-linux reuses the loop device already bound to this file, and frees it (autoclear) on the last unmount.
  const mount = await runImageTool("mount", ["-t", "ext4", "-o", `loop,${MOUNT_OPTIONS}`, image, workspace]);
  if (!mount.ok) {
    throw new AppError(
      "internal",
      `Could not mount the workspace image ${image} at ${workspace}: ${mount.output}. The control plane needs root and a free loop device (/dev/loop-control); set WORKCELL_DISK_QUOTA=watchdog to run without hard disk limits.`,
    );
  }
}

/** Unmounts whatever is mounted at `workspace` (lazily if something on the host still holds it); does nothing if nothing is. */
export async function unmountWorkspace(workspace: string): Promise<void> {
  if (!(await isMountPoint(workspace))) return;
  const umount = await runImageTool("umount", [workspace]);
  if (umount.ok) return;
  const lazy = await runImageTool("umount", ["-l", workspace]);
  if (!lazy.ok)
    throw new AppError(
      "internal",
      `Could not unmount the workspace ${workspace}: ${umount.output}; ${lazy.output}. Unmount it as root ("umount -l ${workspace}").`,
    );
}

/**
 * Frees a removed worker's workspace. Without `keep`, the mount, the image and the
 * directory go. With `keep`, the files are copied out of the image into a plain directory
 * at the same path (set-id bits dropped, since the copy is no longer under nosuid) and
 * the image is deleted; if the copy fails (the host disk is full) the image stays mounted
 * at the path and is renamed `workspace.kept.img` (mount it by hand after a reboot), so
 * nothing is lost. A workspace without an image is deleted or left as is.
 */
export async function disposeWorkspace(workspace: string, options: { keep: boolean }): Promise<void> {
  if (!(await hasDiskImage(workspace))) {
    if (!options.keep) await removeTree(workspace);
    return;
  }
  if (options.keep) {
    await mountDiskImage(workspace);
    const copied = await copyOut(workspace);
    if (!copied) {
      // Renamed so that no restart takes it for a leftover to release; the loop device holds the file open.
      await rename(imagePathOf(workspace), keptImagePathOf(workspace));
      return;
    }
    await unmountWorkspace(workspace);
    await rmdir(workspace);
    await rename(keptPathOf(workspace), workspace);
  } else {
    await unmountWorkspace(workspace);
    await removeTree(workspace);
  }
  await rm(imagePathOf(workspace), { force: true });
}

async function copyOut(workspace: string): Promise<boolean> {
  const kept = keptPathOf(workspace);
  await rm(kept, { recursive: true, force: true });
  await mkdir(kept, { mode: 0o700 });
  // -a copies symlinks as links and keeps owners and modes; the container is gone, so the tree holds still.
  const copy = await runImageTool("cp", ["-a", "--sparse=always", "--", `${workspace}/.`, kept], COPY_TIMEOUT_MS);
  if (!copy.ok) {
    await rm(kept, { recursive: true, force: true }).catch(() => undefined);
    return false;
  }
  await dropSetIdBits(kept);
  return true;
}

async function dropSetIdBits(root: string): Promise<void> {
  const entries = await readdir(root, { recursive: true });
  for (const entry of entries) {
    const file = path.join(root, entry);
    const info = await lstat(file);
    if (!info.isSymbolicLink() && (info.mode & 0o6000) !== 0) await chmod(file, info.mode & 0o1777);
  }
}

/**
 * Unmounts and deletes the workspace images under `workersDir` that belong to no known
 * worker: what a control plane killed while creating a worker or claiming a pool slot
 * left (no agent has used them: a worker is stored before its container starts). Also
 * clears leftovers of an interrupted startup probe in `dataDir`. Returns the ids released.
 */
export async function releaseOrphanImages(dataDir: string, knownIds: ReadonlySet<string>): Promise<string[]> {
  // Best effort: a leftover that cannot be released now is tried again at the next start.
  for (const entry of await readdir(dataDir).catch(() => [])) {
    if (!entry.startsWith("disk-probe-")) continue;
    await disposeWorkspace(path.join(dataDir, entry, "workspace"), { keep: false })
      .then(() => rm(path.join(dataDir, entry), { recursive: true, force: true }))
      .catch(() => undefined);
  }
  const workersDir = path.join(dataDir, "workers");
  const released: string[] = [];
  for (const id of await readdir(workersDir).catch(() => [])) {
    const workspace = path.join(workersDir, id, "workspace");
    if (knownIds.has(id) || !(await hasDiskImage(workspace))) continue;
    const done = await disposeWorkspace(workspace, { keep: false }).then(
      () => true,
      () => false,
    );
    if (done) released.push(id);
  }
  return released;
}

/** How full a mounted workspace image is, or undefined when the workspace is not a mount. */
export async function measureDiskImage(workspace: string): Promise<DiskUsage | undefined> {
  if (!(await isMountPoint(workspace))) return undefined;
  return rateDiskUsage(await statfs(workspace));
}

/**
 * Finds out, once at startup, whether workspaces can get hard limits here: root, loop
 * devices, mkfs.ext4, and a real mount of a small image in the data dir.
 */
export async function probeDiskImages(dataDir: string): Promise<DiskImageSupport> {
  const uid = process.getuid?.();
  if (uid !== 0)
    return {
      available: false,
      reason: `the control plane runs as uid ${String(uid)}, and mounting a workspace image needs root`,
    };
  if (
    !(await access("/dev/loop-control").then(
      () => true,
      () => false,
    ))
  )
    return {
      available: false,
      reason:
        "the host has no loop devices (/dev/loop-control is missing; load the loop module or give the control plane's container access to loop devices)",
    };
  const probe = path.join(dataDir, `disk-probe-${process.pid}`, "workspace");
  try {
    await createDiskImage(probe, PROBE_DISK_MB);
    await disposeWorkspace(probe, { keep: false });
    return { available: true };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const missing = /ENOENT|not found/i.test(message) ? " (is e2fsprogs installed? apt-get install e2fsprogs)" : "";
    return { available: false, reason: `a test image could not be made and mounted: ${message}${missing}` };
  } finally {
    await rm(path.dirname(probe), { recursive: true, force: true }).catch(() => undefined);
  }
}
