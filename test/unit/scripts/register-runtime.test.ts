import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const SCRIPT = path.resolve(import.meta.dirname, "../../../scripts/register-runtime.mjs");
const RUNSC = ["runsc", "/usr/bin/runsc", "--network=none", "--host-uds=open"];
const run = promisify(execFile);

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "workcell-register-runtime-"));
  file = path.join(dir, "docker", "daemon.json");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function register(...args: string[]): Promise<string> {
  return (await run(process.execPath, [SCRIPT, file, ...args])).stdout.trim();
}

async function readConfig(): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
}

describe("register-runtime.mjs", () => {
  it("creates daemon.json with the runtime entry when there is none", async () => {
    expect(await register(...RUNSC)).toBe("changed");
    expect(await readConfig()).toEqual({
      runtimes: { runsc: { path: "/usr/bin/runsc", runtimeArgs: ["--network=none", "--host-uds=open"] } },
    });
  });

  it("keeps every other key and runtime, and the file's mode", async () => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(
      file,
      JSON.stringify({ "log-level": "warn", "userns-remap": "default", runtimes: { kata: { path: "/usr/bin/kata" } } }),
      { mode: 0o600 },
    );
    expect(await register(...RUNSC)).toBe("changed");
    expect(await readConfig()).toEqual({
      "log-level": "warn",
      "userns-remap": "default",
      runtimes: {
        kata: { path: "/usr/bin/kata" },
        runsc: { path: "/usr/bin/runsc", runtimeArgs: ["--network=none", "--host-uds=open"] },
      },
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("is idempotent: a second run changes nothing", async () => {
    await register(...RUNSC);
    const before = await readFile(file, "utf8");
    expect(await register(...RUNSC)).toBe("unchanged");
    expect(await readFile(file, "utf8")).toBe(before);
  });

  it("adds only the flags an existing entry lacks, keeping its path and its own values", async () => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(
      file,
      JSON.stringify({ runtimes: { runsc: { path: "/opt/runsc", runtimeArgs: ["--network=sandbox", "--debug"] } } }),
    );
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, file, ...RUNSC]);
    expect(stdout.trim()).toBe("changed");
    expect(stderr).toMatch(/keeps its own --network=sandbox/);
    expect(await readConfig()).toEqual({
      runtimes: { runsc: { path: "/opt/runsc", runtimeArgs: ["--network=sandbox", "--debug", "--host-uds=open"] } },
    });
  });

  it("refuses a file that is not a JSON object and leaves it untouched", async () => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, "{ not json");
    await expect(register(...RUNSC)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/is not valid JSON.*Nothing was changed/),
    });
    expect(await readFile(file, "utf8")).toBe("{ not json");
    await writeFile(file, "[]");
    await expect(register(...RUNSC)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/must hold a JSON object; it holds an array/),
    });
  });
});
