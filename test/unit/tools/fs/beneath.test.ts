import { lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { constants } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openFileBeneath, writeFileBeneath } from "../../../../tools/fs/beneath.js";

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
