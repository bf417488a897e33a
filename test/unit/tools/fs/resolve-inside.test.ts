import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PathRefusedError, resolveInside } from "../../../../tools/fs/resolve-inside.js";

let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "workcell-resolve-")));
  root = path.join(base, "workspace");
  outside = path.join(base, "outside");
  await mkdir(path.join(root, "src", "nested"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await mkdir(path.join(base, "workspace-evil"), { recursive: true });
  await writeFile(path.join(root, "src", "a.ts"), "a");
  await writeFile(path.join(outside, "secret.txt"), "secret");
  await writeFile(path.join(base, "workspace-evil", "x.txt"), "evil");
  await symlink("/", path.join(root, "to-root"));
  await symlink(path.join(outside, "secret.txt"), path.join(root, "secret-link"));
  await symlink(outside, path.join(root, "outside-dir"));
  await symlink("src", path.join(root, "src-link"));
  await symlink("src-link/a.ts", path.join(root, "chain-1"));
  await symlink("chain-1", path.join(root, "chain-2"));
  await symlink("secret-link", path.join(root, "chain-out"));
  await symlink("../outside/new.txt", path.join(root, "dangling-out"));
  await symlink("src/not-yet.ts", path.join(root, "dangling-in"));
  await symlink(path.join(root, "src"), path.join(root, "abs-inside"));
  await symlink("loop-b", path.join(root, "loop-a"));
  await symlink("loop-a", path.join(root, "loop-b"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(requested: string): Promise<string> {
  const error = await resolveInside(root, requested).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PathRefusedError);
  return (error as Error).message;
}

describe("resolveInside", () => {
  it("resolves a relative path inside the workspace to its real absolute path", async () => {
    const resolved = await resolveInside(root, "src/a.ts");
    expect(resolved).toEqual({ absolute: path.join(root, "src", "a.ts"), relative: "src/a.ts", exists: true, root });
  });

  it("accepts an absolute path inside the workspace", async () => {
    expect((await resolveInside(root, path.join(root, "src"))).relative).toBe("src");
  });

  it("treats the workspace root itself as allowed", async () => {
    expect((await resolveInside(root, ".")).absolute).toBe(root);
  });

  it("refuses ../ traversal out of the workspace", async () => {
    expect(await refusal("../outside/secret.txt")).toMatch(/climbs above the workspace/);
    expect(await refusal("src/../../outside")).toMatch(/refused/);
  });

  it("allows .. that stays inside", async () => {
    expect((await resolveInside(root, "src/nested/../a.ts")).relative).toBe("src/a.ts");
  });

  it("refuses absolute paths outside the workspace", async () => {
    expect(await refusal("/etc/passwd")).toMatch(/absolute paths must be inside/);
  });

  it("refuses the prefix sibling that only shares the workspace's name as a string prefix", async () => {
    expect(await refusal(`${root}-evil/x.txt`)).toMatch(/absolute paths must be inside/);
    expect(await refusal("../workspace-evil/x.txt")).toMatch(/refused/);
  });

  it("refuses a symlink to /", async () => {
    expect(await refusal("to-root/etc/passwd")).toMatch(/symbolic link to "\/"/);
  });

  it("refuses a symlink to a file outside", async () => {
    expect(await refusal("secret-link")).toMatch(/outside the workspace/);
  });

  it("follows a chain of symlinks that stays inside", async () => {
    const resolved = await resolveInside(root, "chain-2");
    expect(resolved.absolute).toBe(path.join(root, "src", "a.ts"));
  });

  it("refuses a chain of symlinks whose last link leaves", async () => {
    expect(await refusal("chain-out")).toMatch(/outside the workspace/);
  });

  it("refuses a dangling symlink pointing outside (a write would create the file there)", async () => {
    expect(await refusal("dangling-out")).toMatch(/refused/);
  });

  it("resolves a dangling symlink pointing inside to the file it would create", async () => {
    const resolved = await resolveInside(root, "dangling-in");
    expect(resolved).toMatchObject({ absolute: path.join(root, "src", "not-yet.ts"), exists: false });
  });

  it("refuses a new file under a symlinked parent that points outside", async () => {
    expect(await refusal("outside-dir/new-file.txt")).toMatch(/outside the workspace/);
    expect(await refusal("outside-dir/deeper/new-file.txt")).toMatch(/outside the workspace/);
  });

  it("accepts an absolute symlink target inside the workspace", async () => {
    expect((await resolveInside(root, "abs-inside/a.ts")).relative).toBe("src/a.ts");
  });

  it("refuses symlink loops instead of spinning", async () => {
    expect(await refusal("loop-a")).toMatch(/more than 40 symbolic links/);
  });

  it("refuses NUL bytes and empty paths", async () => {
    expect(await refusal("src/a.ts\0.png")).toMatch(/NUL byte/);
    expect(await refusal("")).toMatch(/non-empty path/);
  });

  it("reports paths that do not exist yet as missing, under their real parent", async () => {
    const resolved = await resolveInside(root, "src-link/new/deep.ts");
    expect(resolved).toMatchObject({ absolute: path.join(root, "src", "new", "deep.ts"), exists: false });
  });
});
