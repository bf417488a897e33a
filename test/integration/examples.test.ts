import { access } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlane, stopTestPlane, TEST_TOKEN, type TestPlane } from "./helpers/control-plane.js";
import { createTempDir, createTestRepo, git } from "./helpers/test-repo.js";

let test: TestPlane;

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

  it("orchestrator-bugfix.mjs fixes a bug through the /v1/mcp pipeline and exports the fix", async () => {
    const run = await execa("node", [path.join("examples", "orchestrator-bugfix.mjs")], {
      env: { WORKCELL_URL: test.plane.url, WORKCELL_TOKEN: TEST_TOKEN },
      reject: false,
      timeout: 240_000,
    });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const repo = /^demo repository: (.+)$/m.exec(run.stdout)?.[1] ?? "";
    expect(run.stdout).toMatch(/^instruct_unit_tests: wrote test\/greet\.test\.js · commit [0-9a-f]{12} · checks passed/m);
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
