import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeTree } from "../../../../runtime/workspace/remove-tree.js";

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
});

/** Makes a chain of directories whose full path is longer than PATH_MAX (4096), walking down relatively. */
async function makeDeepChain(root: string): Promise<void> {
  const name = "d".repeat(200);
  let current = root;
  const original = process.cwd();
  try {
    for (let depth = 0; depth < 30; depth += 1) {
      process.chdir(current);
      await mkdir(name);
      current = name;
    }
    process.chdir(current);
    await writeFile("leaf.txt", "deep\n");
  } finally {
    process.chdir(original);
  }
}

describe("removeTree", () => {
  it("deletes a tree deeper than PATH_MAX that node's rm refuses", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "remove-tree-"));
    made.push(root);
    await makeDeepChain(root);
    await removeTree(root);
    expect(
      await stat(root).then(
        () => "present",
        (error: NodeJS.ErrnoException) => error.code,
      ),
    ).toBe("ENOENT");
  });

  it("deletes an ordinary tree and accepts one that is already gone", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "remove-tree-"));
    made.push(root);
    await mkdir(path.join(root, "a", "b"), { recursive: true });
    await writeFile(path.join(root, "a", "b", "f.txt"), "x");
    await removeTree(root);
    await removeTree(root);
    expect(
      await stat(root).then(
        () => "present",
        (error: NodeJS.ErrnoException) => error.code,
      ),
    ).toBe("ENOENT");
  });
});
