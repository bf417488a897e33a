import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  type TestPlane,
} from "../helpers/control-plane.js";
import { createTempDir, createTestRepo, git } from "../helpers/test-repo.js";

// Each payload writes a marker into the host's /tmp if it ever runs on the host. Inside the
// sandbox the same path is the container's own /tmp (a tmpfs), so running there is harmless.
let test: TestPlane;
let scratch: string;
const spawned: string[] = [];

beforeAll(async () => {
  test = await startTestPlane();
  scratch = await createTempDir("workcell-hostgit-");
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

const markersOnHost = async (prefix: string) => (await readdir(tmpdir())).filter((name) => name.startsWith(prefix));

function plantPayloads(marker: string): string {
  const touch = (tag: string) => `touch /tmp/${marker}-${tag}`;
  const hooks = [
    "pre-commit",
    "post-commit",
    "post-checkout",
    "reference-transaction",
    "post-merge",
    "pre-push",
    "post-rewrite",
    "pre-auto-gc",
    "fsmonitor-watchman",
  ];
  return [
    "set -e",
    "mkdir -p .git/hooks evil-hooks .git/info",
    ...hooks.map(
      (hook) =>
        `printf '#!/bin/sh\\n${touch(`hook-${hook}`)}\\n' > .git/hooks/${hook} && chmod +x .git/hooks/${hook} && cp .git/hooks/${hook} evil-hooks/`,
    ),
    `git config core.hooksPath /workspace/evil-hooks`,
    `git config core.fsmonitor '${touch("fsmonitor")}; false'`,
    `git config diff.external 'sh -c "${touch("diff-external")}"'`,
    `git config diff.evil.textconv 'sh -c "${touch("textconv")}; cat \\"$1\\"" -'`,
    `echo '*.md diff=evil' >> .git/info/attributes`,
    `git config core.pager '${touch("pager")}; cat'`,
    `git config core.sshCommand '${touch("ssh")}'`,
    `git config filter.evil.clean 'sh -c "${touch("clean")}; cat"'`,
    `git config filter.evil.smudge 'sh -c "${touch("smudge")}; cat"'`,
    `echo '*.txt filter=evil' > .gitattributes`,
    `git config extensions.worktreeConfig true`,
    `git config --worktree core.fsmonitor '${touch("worktree-fsmonitor")}; false'`,
    `git config uploadpack.packObjectsHook '${touch("pack-objects-hook")}'`,
    `git config core.gitProxy '${touch("git-proxy")}'`,
    `git config credential.helper '!${touch("credential")}'`,
  ].join(" && ");
}

interface ExecAnswer {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

describe("host-side git safety", () => {
  it("payloads planted in the worker's repository never run on the host, through diff, export, restart and remove", async () => {
    const repo = await createTestRepo(scratch);
    const worker = await spawnOn(test, repo);
    spawned.push(worker.id);
    const marker = `workcell-marker-${worker.id}`;
    const exec = (command: string) => test.api<ExecAnswer>("POST", `/v1/workers/${worker.id}/exec`, { command });
    const planted = await exec(plantPayloads(marker));
    expect(planted.body.exitCode, planted.body.stderr).toBe(0);
    const committed = await exec(
      "echo 'payload content' > notes.txt && git add -A && git -c core.hooksPath=/dev/null commit -qm 'commit with payloads' && git rev-parse HEAD HEAD^{tree}",
    );
    expect(committed.body.exitCode, committed.body.stderr).toBe(0);
    const [head, tree] = committed.body.stdout.trim().split("\n");
    // A long-running filter process breaks the worker's own git, so it is planted last.
    await exec(`git config filter.evil.process 'touch /tmp/${marker}-filter-process'`);

    // The diff runs inside the sandbox with the agent's own git configuration: a broken
    // filter may make it fail (4xx), which is the agent's problem, never the host's.
    expect([200, 400]).toContain((await test.api("GET", `/v1/workers/${worker.id}/diff`)).status);
    const exported = await test.api<{ commit: string; branch: string }>("POST", `/v1/workers/${worker.id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body.commit).toBe(head);
    // Exactly the committed content, and git operations on the exported branch in the user's repo run nothing planted.
    expect(git(repo, "rev-parse", `${exported.body.branch}^{tree}`)).toBe(tree);
    expect(git(repo, "show", `${exported.body.branch}:notes.txt`)).toBe("payload content");
    expect(() => git(repo, "config", "--get", "core.hooksPath")).toThrow();

    await test.api("POST", `/v1/workers/${worker.id}/stop`);
    await test.api("POST", `/v1/workers/${worker.id}/start`);
    await test.plane.close();
    test = await startTestPlane(test.dataDir);
    expect((await test.api<{ status: string }>("GET", `/v1/workers/${worker.id}`)).body.status).toBe("running");
    await test.api("POST", `/v1/workers/${worker.id}/export`, { branch: "workcell/second-export" });
    expect((await test.api("DELETE", `/v1/workers/${worker.id}`)).status).toBe(200);
    expect(await markersOnHost(marker)).toEqual([]);
  }, 120_000);

  it("a rewritten .git (copied directory) and a .git pointer to a fake gitdir run nothing on the host either", async () => {
    for (const rewrite of [
      "mv .git .gitold && cp -r .gitold .git && rm -rf .gitold",
      "mkdir -p /workspace/.fake/hooks && cp -r .git/. /workspace/.fake/ && rm -rf .git && echo 'gitdir: /workspace/.fake' > .git",
    ]) {
      const repo = await createTestRepo(scratch);
      const worker = await spawnOn(test, repo);
      spawned.push(worker.id);
      const marker = `workcell-marker-${worker.id}`;
      const exec = (command: string) => test.api<ExecAnswer>("POST", `/v1/workers/${worker.id}/exec`, { command });
      expect((await exec(`${plantPayloads(marker)} && ${rewrite}`)).body.exitCode).toBe(0);
      await exec("echo more >> README.md && git add -A && git -c core.hooksPath=/dev/null commit -qm more");
      await test.api("GET", `/v1/workers/${worker.id}/diff`);
      const exported = await test.api<{ commit: string; branch: string }>("POST", `/v1/workers/${worker.id}/export`);
      if (exported.status === 200) expect(git(repo, "log", "-1", "--format=%s", exported.body.branch)).toBe("more");
      await test.api("POST", `/v1/workers/${worker.id}/stop`);
      await test.api("DELETE", `/v1/workers/${worker.id}`);
      expect(await markersOnHost(marker)).toEqual([]);
    }
  }, 120_000);
});
