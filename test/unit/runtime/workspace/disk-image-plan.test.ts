import { describe, expect, it } from "vitest";
import {
  buildMkfsArgs,
  imagePathOf,
  keptImagePathOf,
  keptPathOf,
  MIN_INODES,
  MOUNT_OPTIONS,
  planDiskImage,
  rateDiskUsage,
} from "../../../../runtime/workspace/disk-image-plan.js";

describe("planDiskImage", () => {
  it("makes the image exactly diskMb and gives one inode per 16 KiB", () => {
    expect(planDiskImage(64)).toEqual({ sizeBytes: 64 * 1024 * 1024, inodes: 4_096 });
    expect(planDiskImage(10_240)).toEqual({ sizeBytes: 10_240 * 1024 * 1024, inodes: 655_360 });
  });

  it("never goes below the minimum inode count for small limits", () => {
    expect(planDiskImage(10).inodes).toBe(MIN_INODES);
  });

  it("refuses sizes that are not a whole positive number of MB, saying how to fix it", () => {
    for (const bad of [0, -5, 1.5, Number.NaN]) expect(() => planDiskImage(bad)).toThrow(/whole number of MB/);
  });
});

describe("buildMkfsArgs", () => {
  it("sets the inode count, reserves nothing for root and writes no inode tables or journal up front", () => {
    const args = buildMkfsArgs("/data/workers/ab/workspace.img", planDiskImage(64));
    expect(args.slice(-1)).toEqual(["/data/workers/ab/workspace.img"]);
    expect(args.join(" ")).toContain("-N 4096");
    expect(args.join(" ")).toContain("-m 0");
    expect(args.join(" ")).toMatch(/lazy_itable_init=1,lazy_journal_init=1/);
  });
});

describe("mount options and paths", () => {
  it("mounts without set-id programs or device files", () => {
    expect(MOUNT_OPTIONS.split(",")).toEqual(expect.arrayContaining(["nosuid", "nodev"]));
  });

  it("keeps the image and the kept copy beside the workspace, never inside it", () => {
    expect(imagePathOf("/d/workers/ab/workspace")).toBe("/d/workers/ab/workspace.img");
    expect(keptPathOf("/d/workers/ab/workspace")).toBe("/d/workers/ab/workspace.kept");
    expect(keptImagePathOf("/d/workers/ab/workspace")).toBe("/d/workers/ab/workspace.kept.img");
  });
});

describe("rateDiskUsage", () => {
  const base = { bsize: 4096, blocks: 16_384, bfree: 16_000, bavail: 16_000, files: 4_096, ffree: 4_000 };

  it("reports sizes in MB and inode counts", () => {
    expect(rateDiskUsage(base)).toEqual({ usedMb: 2, sizeMb: 64, inodesUsed: 96, inodesTotal: 4_096, level: "ok" });
  });

  it("is high from 90 % of blocks or of inodes", () => {
    expect(rateDiskUsage({ ...base, bfree: 1_600, bavail: 1_600 }).level).toBe("high");
    expect(rateDiskUsage({ ...base, ffree: 400 }).level).toBe("high");
  });

  it("is full when less than 1 MB or no inode is left", () => {
    expect(rateDiskUsage({ ...base, bfree: 100, bavail: 100 }).level).toBe("full");
    expect(rateDiskUsage({ ...base, ffree: 0 }).level).toBe("full");
  });
});
