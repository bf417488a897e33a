/**
 * Pure decisions for per-workspace filesystem images: how big, how many inodes, which
 * mkfs and mount options, where the image lives, and how full a workspace is.
 */

const MIB = 1024 * 1024;

/** One inode per this many bytes of `diskMb` (ext4's own default ratio for ordinary filesystems). */
export const BYTES_PER_INODE = 16_384;
/** The fewest inodes an image gets, so a small `diskMb` still holds a checkout. */
export const MIN_INODES = 2_048;
/**
 * Mount options of every workspace image: no set-id programs, no device files, no atime
 * writes, freed blocks handed back to the host file (discard punches holes), and no
 * background zeroing of inode tables (the sparse file already reads as zeros).
 */
export const MOUNT_OPTIONS = "nosuid,nodev,noatime,discard,noinit_itable";
/** Share of blocks or inodes in use from which a workspace is reported as nearly full. */
export const HIGH_USAGE_RATIO = 0.9;

/** The shape of a workspace image for a given limit. */
export interface DiskImagePlan {
  readonly sizeBytes: number;
  readonly inodes: number;
}

/** Size and inode count of the image that enforces `diskMb` (a whole number of MB, ≥ 1). */
export function planDiskImage(diskMb: number): DiskImagePlan {
  if (!Number.isInteger(diskMb) || diskMb < 1) {
    throw new RangeError(
      `diskMb must be a whole number of MB, at least 1; got ${String(diskMb)}. Pass resources.diskMb as an integer.`,
    );
  }
  const sizeBytes = diskMb * MIB;
  return { sizeBytes, inodes: Math.max(MIN_INODES, Math.floor(sizeBytes / BYTES_PER_INODE)) };
}

/**
 * The mkfs.ext4 argv (without the program) that formats `imagePath` for `plan`: an exact
 * inode count, no blocks reserved for root, inode tables and journal left unwritten (the
 * file is sparse), and no discard pass over a file that is already all holes.
 */
export function buildMkfsArgs(imagePath: string, plan: DiskImagePlan): string[] {
  return [
    "-q",
    "-F",
    "-t",
    "ext4",
    "-N",
    String(plan.inodes),
    "-m",
    "0",
    "-E",
    "lazy_itable_init=1,lazy_journal_init=1,nodiscard",
    "-L",
    "workcell",
    imagePath,
  ];
}

/** Where the image of `workspace` lives: beside it, never inside it, so the sandbox cannot reach the raw file. */
export function imagePathOf(workspace: string): string {
  return `${workspace}.img`;
}

/** Where the image of a kept workspace whose copy-out failed is left (still mounted at the workspace). */
export function keptImagePathOf(workspace: string): string {
  return `${workspace}.kept.img`;
}

/** Where a kept workspace is copied before it replaces the mount point. */
export function keptPathOf(workspace: string): string {
  return `${workspace}.kept`;
}

/** What statfs reports about a mounted workspace (Node's `StatsFs` fits). */
export interface FsCounts {
  readonly bsize: number;
  readonly blocks: number;
  readonly bfree: number;
  readonly bavail: number;
  readonly files: number;
  readonly ffree: number;
}

/** How full a hard-limited workspace is. */
export interface DiskUsage {
  readonly usedMb: number;
  readonly sizeMb: number;
  readonly inodesUsed: number;
  readonly inodesTotal: number;
  /** `full`: no room left for a block or an inode; `high`: at least 90 % of either in use. */
  readonly level: "ok" | "high" | "full";
}

/** The usage of a workspace filesystem from its statfs counts. */
export function rateDiskUsage(counts: FsCounts): DiskUsage {
  const usedBlocks = counts.blocks - counts.bfree;
  const inodesUsed = counts.files - counts.ffree;
  const blockRatio = counts.blocks === 0 ? 1 : usedBlocks / counts.blocks;
  const inodeRatio = counts.files === 0 ? 1 : inodesUsed / counts.files;
  // A few blocks always stay free (a write needs more than one); below 1 MB is full.
  const full = counts.bavail * counts.bsize < MIB || counts.ffree === 0;
  const level = full ? "full" : Math.max(blockRatio, inodeRatio) >= HIGH_USAGE_RATIO ? "high" : "ok";
  return {
    usedMb: Math.round((usedBlocks * counts.bsize) / MIB),
    sizeMb: Math.round((counts.blocks * counts.bsize) / MIB),
    inodesUsed,
    inodesTotal: counts.files,
    level,
  };
}
