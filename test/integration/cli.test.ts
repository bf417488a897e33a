import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  type TestPlane,
} from "./helpers/control-plane.js";
import path from "node:path";
import { runCli, runCliIn, runCliWithInput } from "./helpers/cli.js";
import { createTempDir, createTestRepo } from "./helpers/test-repo.js";

let test: TestPlane;
let repo: string;
const spawned: string[] = [];

beforeAll(async () => {
  test = await startTestPlane();
  repo = await createTestRepo(await createTempDir("workcell-cli-"));
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

const cli = (...args: string[]) => runCli(test, ...args);

describe("the workcell CLI", () => {
  it("spawns with Deno-style flags that become the worker's policy, and prints JSON for scripts", async () => {
    const result = await cli(
      "spawn",
      repo,
      "--name",
      "cli-test",
      "--allow-net=127.0.0.1:8080,*.example.com",
      "--allow-run=git,ls",
      "--deny-read=/srv/secret",
      "--prompt",
      "--memory",
      "1024",
      "--json",
    );
    expect(result.code, result.stderr).toBe(0);
    const worker = JSON.parse(result.stdout) as { id: string; branch: string; resources: { memoryMb: number } };
    spawned.push(worker.id);
    expect(worker.branch).toMatch(/^workcell\/cli-test-/);
    expect(worker.resources.memoryMb).toBe(1024);
    const policy = await test.api<{ permissions: Record<string, unknown> }>(
      "GET",
      `/v1/workers/${worker.id}/permissions`,
    );
    expect(policy.body.permissions).toMatchObject({
      net: ["127.0.0.1:8080", "*.example.com"],
      run: ["git", "ls"],
      deny: { read: ["/srv/secret"] },
      prompt: true,
      mode: "enforce",
    });

    const listed = await cli("ls", "--json");
    expect((JSON.parse(listed.stdout) as { workers: { id: string }[] }).workers.map((w) => w.id)).toContain(worker.id);
    const human = await cli("ls");
    expect(human.stdout).toMatch(/^ID\s+NAME\s+STATUS/);
    expect(human.stdout).not.toMatch(/\u001b\[/);
  });

  it("resolves a relative repository path against the directory it runs in", async () => {
    const result = await runCliIn(path.dirname(repo), test, "spawn", path.basename(repo), "--json");
    expect(result.code, result.stderr).toBe(0);
    const worker = JSON.parse(result.stdout) as { id: string; repo: string };
    spawned.push(worker.id);
    expect(worker.repo).toBe(repo);
  });

  it("refuses a flag value that is not a number as a usage error naming the flag, and creates nothing", async () => {
    const before = (await test.api<{ workers: unknown[] }>("GET", "/v1/workers")).body.workers.length;
    for (const [flag, value] of [
      ["--memory", "lots"],
      ["--cpus", "0"],
      ["--memory", "-5"],
    ]) {
      const result = await cli("spawn", repo, `${flag}=${value}`);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flag} takes a positive number (e.g. ${flag} `);
      expect(result.stderr).toContain(`got "${value}"`);
    }
    expect((await test.api<{ workers: unknown[] }>("GET", "/v1/workers")).body.workers.length).toBe(before);
  });

  it("exec exits with the command's exit code and streams its output", async () => {
    const spawnedWorker = JSON.parse((await cli("spawn", repo, "--json")).stdout) as { id: string };
    spawned.push(spawnedWorker.id);
    const ok = await cli("exec", spawnedWorker.id, "--", "sh", "-c", "echo out; echo err >&2; exit 3");
    expect(ok).toMatchObject({ code: 3, stdout: "out\n", stderr: "err\n" });
    const json = await cli("exec", spawnedWorker.id, "--json", "--", "true");
    expect(JSON.parse(json.stdout)).toMatchObject({ exitCode: 0, timedOut: false });
    const config = JSON.parse((await cli("mcp-config", spawnedWorker.id)).stdout) as {
      mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
    };
    expect(Object.values(config.mcpServers)[0]).toMatchObject({
      url: expect.stringContaining(`/v1/workers/${spawnedWorker.id}/mcp`),
      headers: { Authorization: `Bearer ${TEST_TOKEN}` },
    });
    const removed = await cli("rm", spawnedWorker.id, "--json");
    expect(JSON.parse(removed.stdout)).toEqual({ id: spawnedWorker.id, status: "removed" });
  });

  it("says what is wrong in one line with a meaningful exit code", async () => {
    const usage = await cli("spawn");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^workcell: Missing the repository path\./);
    const unknown = await cli("exec", "deadbeef", "--", "true");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^workcell: No worker with id "deadbeef"/);
    const badFlag = await cli("ls", "--colour");
    expect(badFlag.code).toBe(2);
    const typo = await cli("spawn", repo, "--memry", "2048");
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^workcell: Unknown flag --memry for 'workcell spawn'\. Did you mean --memory\?/);
  });

  it("shell without a terminal runs the piped script like exec: under the policy, in the audit trail, with its exit code", async () => {
    const worker = JSON.parse((await cli("spawn", repo, "--json")).stdout) as { id: string };
    spawned.push(worker.id);
    const run = await runCliWithInput(
      'cd src\necho "in $(basename $PWD) as $(id -u)"\nexit 3\n',
      test,
      "shell",
      worker.id,
    );
    expect(run.stdout).toBe("in src as 1000\n");
    expect(run.code).toBe(3);
    const events = await test.api<{ events: { type: string; command?: string }[] }>(
      "GET",
      `/v1/workers/${worker.id}/events?type=exec`,
    );
    expect(events.body.events.map((event) => event.command)).toContain(
      'cd src\necho "in $(basename $PWD) as $(id -u)"\nexit 3\n',
    );
    const empty = await runCliWithInput("", test, "shell", worker.id);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^workcell: No script on standard input\./);
  });

  it("says when a worker has no changes, and shows each logged command with its outcome", async () => {
    const worker = JSON.parse((await cli("spawn", repo, "--json")).stdout) as { id: string; baseCommit: string };
    spawned.push(worker.id);
    const clean = await cli("diff", worker.id);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toBe(
      `no changes since the base (${worker.baseCommit.slice(0, 12)}): nothing committed, staged, edited or added\n`,
    );
    await cli("exec", worker.id, "--", "sh", "-c", "echo boom >&2; exit 4");
    const logs = await cli("logs", worker.id);
    expect(logs.stdout).toMatch(/ exec sh -c echo boom >&2; exit 4 → exit 4 \(\d+ ms\): boom \[error\]\n/);
  });
});
