import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The helper the sandbox image compiles, compiled and run here on the host: the identity
// switches it makes are the kernel's, the same as inside a runc container.
const source = fileURLToPath(new URL("../../../sandbox-images/sandbox-user.c", import.meta.url));
const hasGcc = spawnSync("gcc", ["--version"]).status === 0;
const isRoot = process.getuid?.() === 0;
let dir = "";
let helper = "";

beforeAll(async () => {
  if (!hasGcc) return;
  dir = await mkdtemp(path.join(tmpdir(), "workcell-sandbox-user-"));
  await chmod(dir, 0o755);
  helper = path.join(dir, "workcell-sandbox-user");
  const built = spawnSync("gcc", ["-O2", "-Wall", "-Wextra", "-Werror", "-o", helper, source], { encoding: "utf8" });
  expect(built.stderr).toBe("");
  expect(built.status).toBe(0);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function run(args: readonly string[]) {
  return spawnSync(helper, args, { encoding: "utf8" });
}

/** The id and capability lines of a /proc/<pid>/status. */
function identity(status: string): Record<string, string> {
  const lines = status.split("\n").filter((line) => /^(Uid|Gid|Groups|CapPrm|CapEff|CapBnd|CapAmb):/.test(line));
  return Object.fromEntries(
    lines.map((line) => line.split(":").map((part) => part.trim().replace(/\s+/g, " ")) as [string, string]),
  );
}

const sandbox = {
  Uid: "1000 1000 1000 1000",
  Gid: "1000 1000 1000 1000",
  Groups: "1000",
  CapPrm: "0000000000000000",
  CapEff: "0000000000000000",
  CapBnd: "0000000000000000",
  CapAmb: "0000000000000000",
};

describe.skipIf(!hasGcc)("workcell-sandbox-user", () => {
  it("refuses root, negative, signed and non-numeric ids, and says what it expected", () => {
    for (const [uid, gid] of [
      ["0", "1000"],
      ["1000", "0"],
      ["-1", "1000"],
      ["+5", "1000"],
      ["abc", "1000"],
      ["1000", ""],
      ["4294967295", "1000"],
    ]) {
      const result = run([uid ?? "", gid ?? "", "true"]);
      expect(result.status).toBe(126);
      expect(result.stderr).toMatch(/must be a decimal id other than 0; got "/);
    }
    expect(run(["1000"]).stderr).toMatch(/^usage: workcell-sandbox-user UID GID PROGRAM/);
  });

  it("answers 127, as a shell would, when the program does not exist", () => {
    const uid = String(isRoot ? 1000 : process.getuid?.());
    const gid = String(isRoot ? 1000 : process.getgid?.());
    const result = run([uid, gid, "/nonexistent/program"]);
    expect(result.status).toBe(127);
    expect(result.stderr).toMatch(/cannot run \/nonexistent\/program: No such file or directory/);
  });

  it.skipIf(!isRoot)("started by root, runs the program with every id the sandbox user's and no capability", () => {
    const result = run(["1000", "1000", "cat", "/proc/self/status"]);
    expect(result.status).toBe(0);
    expect(identity(result.stdout)).toEqual(sandbox);
  });

  it.skipIf(!isRoot)(
    "started by a process that switched only its effective ids (the tools server), leaves it no way back either",
    () => {
      const script = [
        "const { spawnSync } = require('node:child_process');",
        "process.setgroups([1000]); process.setegid(1000); process.seteuid(1000);",
        "const own = require('node:fs').readFileSync('/proc/self/status', 'utf8');",
        "const child = spawnSync(process.argv[1], ['1000', '1000', 'cat', '/proc/self/status'], { encoding: 'utf8' });",
        "process.stdout.write(JSON.stringify({ own, child: child.stdout, status: child.status, stderr: child.stderr }));",
      ].join("\n");
      const result = spawnSync(process.execPath, ["-e", script, helper], { encoding: "utf8" });
      const { own, child, status, stderr } = JSON.parse(result.stdout) as {
        own: string;
        child: string;
        status: number;
        stderr: string;
      };
      // The server itself: real and saved uid 0, effective the sandbox user's, no effective capability.
      expect(identity(own)).toMatchObject({ Uid: "0 1000 0 1000", Gid: "0 1000 0 1000", CapEff: "0000000000000000" });
      expect(identity(own).CapBnd).not.toBe("0000000000000000");
      expect(stderr).toBe("");
      expect(status).toBe(0);
      expect(identity(child)).toEqual(sandbox);
    },
  );

  it.skipIf(!isRoot)("run by the sandbox user, cannot switch to any other user", () => {
    const result = run(["1000", "1000", helper, "1001", "1001", "id", "-u"]);
    expect(result.status).toBe(126);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/taking back root for the switch failed: Operation not permitted/);
  });
});
