import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pythonTestSkeleton } from "../../../../tools/code/generate.js";

let root = "";
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

async function project(files: Record<string, string>): Promise<string> {
  root = await mkdtemp(path.join(tmpdir(), "workcell-skeleton-"));
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), content);
  }
  return root;
}

const SOURCE = "def want_bytes(s):\n    return s\n\n\nclass Signer:\n    pass\n";

describe("pythonTestSkeleton's import", () => {
  it("imports a src-layout package by its own name, not as src.…", async () => {
    const dir = await project({ "src/itsdangerous/encoding.py": SOURCE, "src/itsdangerous/__init__.py": "" });
    expect(pythonTestSkeleton(dir, "src/itsdangerous/encoding.py", SOURCE, undefined).split("\n")[0]).toBe(
      "from itsdangerous.encoding import want_bytes, Signer",
    );
    expect(pythonTestSkeleton(dir, "src/itsdangerous/__init__.py", SOURCE, "want_bytes").split("\n")[0]).toBe(
      "from itsdangerous import want_bytes",
    );
  });

  it("keeps src in the name where src is itself a package, and imports flat layouts by path", async () => {
    const dir = await project({ "src/__init__.py": "", "src/util.py": SOURCE, "app/core.py": SOURCE });
    expect(pythonTestSkeleton(dir, "src/util.py", SOURCE, "want_bytes").split("\n")[0]).toBe(
      "from src.util import want_bytes",
    );
    expect(pythonTestSkeleton(dir, "app/core.py", SOURCE, "Signer").split("\n")[0]).toBe("from app.core import Signer");
  });
});
