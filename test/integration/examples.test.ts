import { access } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlane, stopTestPlane, TEST_TOKEN, type TestPlane } from "./helpers/control-plane.js";
import { createTempDir, createTestRepo, git } from "./helpers/test-repo.js";

let test: TestPlane;

/**
 * A virtualenv with the official `mcp` SDK, installed from this machine's own package
 * indexes only (pip's configured find-links and file:// indexes), so no test reaches the
 * network; undefined, with the reason, where pip cannot install it that way.
 */
async function pythonWithMcp(): Promise<{ python: string } | { missing: string }> {
  const config = await execa("python3", ["-m", "pip", "config", "list"], { reject: false });
  const local = [...config.stdout.matchAll(/(?:index-url|find-links)='([^']+)'/g)]
    .flatMap((match) => (match[1] as string).split(/\s+/))
    .filter((source) => source.startsWith("file://") || source.startsWith("/"));
  if (local.length === 0)
    return { missing: "pip has no local package index on this machine, so the mcp SDK cannot be installed offline" };
  const venv = path.join(await createTempDir("workcell-pyexample-"), "venv");
  const created = await execa("python3", ["-m", "venv", venv], { reject: false });
  if (created.exitCode !== 0) return { missing: `python3 -m venv failed: ${created.stderr}` };
  const [first, ...rest] = local.map((source) => (source.startsWith("/") ? `file://${source}` : source));
  const sources = ["--index-url", first as string, ...rest.flatMap((source) => ["--extra-index-url", source])];
  const installed = await execa(
    path.join(venv, "bin", "pip"),
    ["install", "-q", "--disable-pip-version-check", ...sources, "mcp"],
    { reject: false, timeout: 180_000 },
  );
  if (installed.exitCode !== 0)
    return { missing: `pip could not install mcp from the local indexes: ${installed.stderr.slice(-300)}` };
  return { python: path.join(venv, "bin", "python") };
}

beforeAll(async () => {
  test = await startTestPlane();
});

afterAll(async () => {
  await stopTestPlane(test);
});

describe("examples/", () => {
  it("drive-worker.mjs spawns a worker, drives it over MCP, shows the diff and removes it", async () => {
    const repo = await createTestRepo(await createTempDir("workcell-example-"));
    const run = await execa("node", [path.join("examples", "drive-worker.mjs"), repo], {
      env: { WORKCELL_URL: test.plane.url, WORKCELL_TOKEN: TEST_TOKEN },
      reject: false,
      timeout: 120_000,
    });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const id = /^spawned ([0-9a-f]{8}) on workcell\/example-\1;/m.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    expect(run.stdout).toMatch(/\d+ tools: .*write_file/);
    expect(run.stdout).toContain("src");
    expect(run.stdout).toMatch(/diff since [0-9a-f]{12}: added NOTES\.md \+1\/-0$/m);
    expect(run.stdout).toContain(`removed ${id}`);
    expect((await test.api("GET", `/v1/workers/${id}`)).status).toBe(404);
    // The source repository saw nothing.
    await expect(access(path.join(repo, "NOTES.md"))).rejects.toThrow();
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  it("python_agent.py drives a worker with the official Python MCP SDK over Streamable HTTP and the bearer header", async (context) => {
    const sdk = await pythonWithMcp();
    if ("missing" in sdk) return context.skip(sdk.missing);
    const repo = await createTestRepo(await createTempDir("workcell-pyexample-"));
    const run = await execa(sdk.python, [path.join("examples", "python_agent.py"), repo], {
      env: { WORKCELL_URL: test.plane.url, WORKCELL_TOKEN: TEST_TOKEN },
      reject: false,
      timeout: 120_000,
    });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const id = /^spawned ([0-9a-f]{8}) on workcell\/python-example-\1;/m.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    expect(run.stdout).toMatch(/^\d+ tools: .*\bwrite_file\b/m);
    expect(run.stdout).toMatch(/^committed [0-9a-f]{12}$/m);
    expect(run.stdout).toMatch(/^diff since [0-9a-f]{12}: added NOTES\.md \+1\/-0$/m);
    expect(run.stdout).toContain(`removed ${id}`);
    expect((await test.api("GET", `/v1/workers/${id}`)).status).toBe(404);
    expect(git(repo, "status", "--porcelain")).toBe("");
  }, 300_000);

  it("orchestrator-bugfix.mjs fixes a bug through the /v1/mcp pipeline and exports the fix", async () => {
    const run = await execa("node", [path.join("examples", "orchestrator-bugfix.mjs")], {
      env: { WORKCELL_URL: test.plane.url, WORKCELL_TOKEN: TEST_TOKEN },
      reject: false,
      timeout: 240_000,
    });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const repo = /^demo repository: (.+)$/m.exec(run.stdout)?.[1] ?? "";
    expect(run.stdout).toMatch(
      /^instruct_unit_tests: wrote test\/greet\.test\.js · commit [0-9a-f]{12} · checks passed/m,
    );
    expect(run.stdout).toMatch(/^instruct_implementation: wrote src\/greet\.js · commit [0-9a-f]{12} · checks passed/m);
    expect(run.stdout).toMatch(/^complete: 19 transitions, 5 commits/m);
    // The fix is a real branch of the demo repository, and it passes its tests there.
    expect(git(repo, "show", "fix/greeting:src/greet.js")).toContain("Hello");
    git(repo, "checkout", "-q", "fix/greeting");
    const tests = await execa("node", ["--test", "test/"], { cwd: repo, reject: false });
    expect(tests.exitCode, tests.stdout).toBe(0);
    expect(tests.stdout).toMatch(/# pass 2/);
    const { body } = await test.api<{ workers: unknown[] }>("GET", "/v1/workers");
    expect(body.workers).toEqual([]);
  }, 300_000);

  it("drive-worker.mjs explains its usage when the repository is missing", async () => {
    const run = await execa("node", [path.join("examples", "drive-worker.mjs")], { reject: false });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/usage: node examples\/drive-worker\.mjs/);
  });
});
