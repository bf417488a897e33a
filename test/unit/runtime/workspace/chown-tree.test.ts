import { link, lstat, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chownTree, refuseForeignEntry, type TreeEntryStats } from "../../../../runtime/workspace/chown-tree.js";

const entry = (kind: "file" | "dir" | "link", dev: number, nlink: number): TreeEntryStats => ({
  dev,
  nlink,
  isFile: () => kind === "file",
  isDirectory: () => kind === "dir",
  isSymbolicLink: () => kind === "link",
});

describe("refuseForeignEntry", () => {
  it("accepts the workspace's own files, directories and symlinks", () => {
    expect(refuseForeignEntry(entry("file", 7, 1), 7)).toBeUndefined();
    expect(refuseForeignEntry(entry("dir", 7, 3), 7)).toBeUndefined();
    expect(refuseForeignEntry(entry("link", 7, 1), 7)).toBeUndefined();
  });

  it("refuses a hardlinked file and anything on another filesystem", () => {
    expect(refuseForeignEntry(entry("file", 7, 2), 7)).toMatch(/2 hard links/);
    expect(refuseForeignEntry(entry("dir", 8, 2), 7)).toMatch(/another filesystem/);
  });
});

// Needs root (to chown); the control plane runs chownTree only as root.
describe.runIf(process.getuid?.() === 0)("chownTree", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "chown-tree-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("hands the tree over without following a symlink out of it", async () => {
    const outside = path.join(dir, "outside.txt");
    await writeFile(outside, "host\n");
    await mkdir(path.join(dir, "ws", "sub"), { recursive: true });
    await writeFile(path.join(dir, "ws", "sub", "a.txt"), "a\n");
    await symlink(outside, path.join(dir, "ws", "escape"));
    await chownTree(path.join(dir, "ws"), 1000, 1000);
    expect((await lstat(path.join(dir, "ws", "sub", "a.txt"))).uid).toBe(1000);
    expect((await lstat(path.join(dir, "ws", "escape"))).uid).toBe(1000);
    expect((await lstat(outside)).uid).toBe(0);
  });

  it("refuses a file hardlinked from outside and chowns nothing", async () => {
    const source = path.join(dir, "source-object");
    await writeFile(source, "object\n");
    await mkdir(path.join(dir, "ws"));
    await writeFile(path.join(dir, "ws", "own.txt"), "own\n");
    await link(source, path.join(dir, "ws", "borrowed"));
    await expect(chownTree(path.join(dir, "ws"), 1000, 1000)).rejects.toThrow(/hard links/);
    expect((await lstat(source)).uid).toBe(0);
    expect((await lstat(path.join(dir, "ws", "own.txt"))).uid).toBe(0);
  });
});
