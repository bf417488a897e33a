import { lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { appendFileSync, constants, fstatSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openFileBeneath, writeFileBeneath } from "../../../../tools/fs/beneath.js";
import { pinnedRoot, pinRoot, realRoot } from "../../../../tools/fs/pinned-roots.js";
import { resolveInside } from "../../../../tools/fs/resolve-inside.js";

let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "workcell-beneath-")));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  await mkdir(path.join(root, "dir"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(outside, "secret.txt"), "secret");
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("beneath", () => {
  it("writes atomically, creating parents, and keeps an existing file's mode", async () => {
    await writeFileBeneath(root, "dir/new/file.txt", "one");
    expect(await readFile(path.join(root, "dir/new/file.txt"), "utf8")).toBe("one");
    await writeFile(path.join(root, "exec.sh"), "#!/bin/sh", { mode: 0o755 });
    await writeFileBeneath(root, "exec.sh", "#!/bin/sh\necho hi");
    expect((await lstat(path.join(root, "exec.sh"))).mode & 0o777).toBe(0o755);
  });

  it("refuses a parent that is a symlink instead of following it", async () => {
    await symlink(outside, path.join(root, "swapped"));
    await expect(writeFileBeneath(root, "swapped/evil.txt", "x")).rejects.toThrow(/replaced by a symbolic link/);
    await expect(openFileBeneath(root, "swapped/secret.txt", constants.O_RDONLY)).rejects.toThrow(
      /replaced by a symbolic link/,
    );
    await expect(lstat(path.join(outside, "evil.txt"))).rejects.toThrow();
  });

  it("refuses a final component that is a symlink", async () => {
    await symlink(path.join(outside, "secret.txt"), path.join(root, "link.txt"));
    await expect(openFileBeneath(root, "link.txt", constants.O_RDONLY)).rejects.toThrow(/replaced by a symbolic link/);
  });
});

describe("a pinned root (the workspace, kept open for the process's life)", () => {
  let pinned: string;

  beforeAll(async () => {
    pinned = path.join(base, "pinned");
    await mkdir(path.join(pinned, "dir"), { recursive: true });
    await writeFile(path.join(pinned, "dir", "file.txt"), "inside");
    await symlink(outside, path.join(pinned, "swapped"));
    await symlink(path.join(outside, "secret.txt"), path.join(pinned, "link.txt"));
    expect(pinRoot(pinned)).toBe(true);
  });

  it("reads, writes and refuses exactly as an unpinned root does, through its one descriptor", async () => {
    const descriptors = readdirSync("/proc/self/fd").length;
    for (let round = 0; round < 3; round += 1) {
      const file = await openFileBeneath(pinned, "dir/file.txt", constants.O_RDONLY);
      expect(file.readText()).toBe("inside");
      file.closeNow();
      await writeFileBeneath(pinned, "dir/new/written.txt", `round ${round}`);
      await expect(openFileBeneath(pinned, "swapped/secret.txt", constants.O_RDONLY)).rejects.toThrow(
        /replaced by a symbolic link/,
      );
      await expect(openFileBeneath(pinned, "link.txt", constants.O_RDONLY)).rejects.toThrow(
        /replaced by a symbolic link/,
      );
    }
    expect(await readFile(path.join(pinned, "dir/new/written.txt"), "utf8")).toBe("round 2");
    await expect(lstat(path.join(outside, "written.txt"))).rejects.toThrow();
    // Nothing leaked, and the pinned descriptor was lent, never closed.
    expect(readdirSync("/proc/self/fd").length).toBe(descriptors);
    const held = pinnedRoot(pinned);
    expect(held).toBeDefined();
    expect(fstatSync(held!.fd).isDirectory()).toBe(true);
    expect(realRoot(pinned)).toBe(pinned);
    expect((await resolveInside(pinned, "dir/../dir/file.txt")).absolute).toBe(path.join(pinned, "dir/file.txt"));
  });

  it("reads a file whole given the size a stat told, even one that grew or shrank since", async () => {
    await writeFile(path.join(pinned, "grows.txt"), "abc");
    const file = await openFileBeneath(pinned, "grows.txt", constants.O_RDONLY);
    const size = file.stat().size;
    appendFileSync(path.join(pinned, "grows.txt"), "def".repeat(1000));
    expect(file.readText(size)).toBe(`abc${"def".repeat(1000)}`);
    file.closeNow();
    const again = await openFileBeneath(pinned, "grows.txt", constants.O_RDONLY);
    expect(again.readText(5_000)).toBe(`abc${"def".repeat(1000)}`);
    again.closeNow();
  });
});
