import { spawnSync } from "node:child_process";
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExecutableFile, pathExists } from "../../../../tools/fs/exists.js";

const isRoot = process.getuid?.() === 0;
const hasSetpriv = spawnSync("setpriv", ["--version"]).status === 0;
const module = fileURLToPath(new URL("../../../../tools/fs/exists.ts", import.meta.url));
let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "workcell-exists-"));
  await chmod(dir, 0o755);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("pathExists and isExecutableFile", () => {
  it("answer for existing, missing and executable paths", async () => {
    await writeFile(path.join(dir, "plain"), "x", { mode: 0o644 });
    await writeFile(path.join(dir, "tool"), "#!/bin/sh\n", { mode: 0o755 });
    expect(pathExists(path.join(dir, "plain"))).toBe(true);
    expect(pathExists(path.join(dir, "missing"))).toBe(false);
    expect(isExecutableFile(path.join(dir, "tool"))).toBe(true);
    expect(isExecutableFile(path.join(dir, "plain"))).toBe(false);
    expect(isExecutableFile(dir)).toBe(false);
  });

  it.skipIf(!isRoot || !hasSetpriv)(
    "see into a workspace closed to others from a process with a root real uid and the sandbox user's effective ids, where existsSync cannot",
    async () => {
      const workspace = path.join(dir, "workspace");
      await mkdir(workspace, { mode: 0o700 });
      await writeFile(path.join(workspace, "go.mod"), "module x\n");
      await chown(workspace, 1000, 1000);
      await chown(path.join(workspace, "go.mod"), 1000, 1000);
      const script = [
        `import { existsSync } from "node:fs";`,
        `import { pathExists } from ${JSON.stringify(module)};`,
        "process.setgroups([1000]); process.setegid(1000); process.seteuid(1000);",
        `const target = ${JSON.stringify(path.join(workspace, "go.mod"))};`,
        "process.stdout.write(JSON.stringify({ existsSync: existsSync(target), pathExists: pathExists(target) }));",
      ].join("\n");
      // As in a worker's container: root whose bounding set holds only SETUID and SETGID.
      const result = spawnSync(
        "setpriv",
        [
          "--bounding-set=-all,+setuid,+setgid",
          process.execPath,
          "--import",
          "tsx",
          "--input-type=module",
          "-e",
          script,
        ],
        { encoding: "utf8" },
      );
      expect(result.stderr).toBe("");
      expect(JSON.parse(result.stdout)).toEqual({ existsSync: false, pathExists: true });
    },
  );
});
