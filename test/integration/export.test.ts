import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import {
  removeContainersOf,
  spawnWorker,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, git } from "./helpers/test-repo.js";

// Export onto branches that already exist in the user's repository: moved only forward, never
// when that would lose commits, never when a working tree has them checked out; each refusal
// a 409 that says which case it is and what to do.
let test: TestPlane;
let worker: ApiWorker;
let repo: string;
let workerCommit: string;
type ErrorBody = { error: { code: string; message: string; details?: Record<string, unknown> } };

beforeAll(async () => {
  test = await startTestPlane();
  ({ repo, worker } = await spawnWorker(test, await createTempDir("workcell-export-")));
  const committed = await test.api<{ exitCode: number; stdout: string }>("POST", `/v1/workers/${worker.id}/exec`, {
    command: "echo change >> README.md && git commit -qam 'worker change' && git rev-parse HEAD",
  });
  expect(committed.body.exitCode).toBe(0);
  workerCommit = committed.body.stdout.trim();
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf([worker.id]);
});

function exportTo(branch: string) {
  return test.api<ErrorBody & { branch: string; commit: string }>("POST", `/v1/workers/${worker.id}/export`, {
    branch,
  });
}

/** A commit on top of main that the worker's branch does not have. */
function commitOnTopOfMain(message: string): string {
  const tree = git(repo, "rev-parse", "main^{tree}");
  return git(repo, "commit-tree", tree, "-p", "main", "-m", message);
}

describe("export onto an existing branch", () => {
  it("refuses a branch that has diverged with a 409 that says so, and leaves it and the repository's refs as they were", async () => {
    const theirs = commitOnTopOfMain("the user's own commit");
    git(repo, "update-ref", "refs/heads/diverged", theirs);
    const refsBefore = git(repo, "for-each-ref", "--format=%(refname) %(objectname)");
    const response = await exportTo("diverged");
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("conflict");
    expect(response.body.error.message).toMatch(
      /^Branch diverged already exists in .* and has commits the worker's branch does not/,
    );
    expect(response.body.error.details).toMatchObject({ branch: "diverged", reason: "diverged" });
    expect(git(repo, "rev-parse", "diverged")).toBe(theirs);
    expect(git(repo, "for-each-ref", "--format=%(refname) %(objectname)")).toBe(refsBefore);
  });

  it("moves a branch the worker's commit descends from forward", async () => {
    git(repo, "branch", "behind", "main");
    const response = await exportTo("behind");
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ branch: "behind", commit: workerCommit });
    expect(git(repo, "rev-parse", "behind")).toBe(workerCommit);
  });

  it("refuses the branch checked out in the repository with its own message, which does not suggest deleting it", async () => {
    const mainBefore = git(repo, "rev-parse", "main");
    const response = await exportTo("main");
    expect(response.status).toBe(409);
    expect(response.body.error.message).toBe(
      `Branch main is checked out in ${repo}; moving it would change what that working tree's files are compared against. Export under another name with {"branch": "..."}, then merge it there (git merge <that branch>).`,
    );
    expect(response.body.error.message).not.toMatch(/delete/);
    expect(response.body.error.details).toMatchObject({ branch: "main", reason: "checked_out", worktree: repo });
    expect(git(repo, "rev-parse", "main")).toBe(mainBefore);
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  it("refuses a branch checked out in another worktree of the repository, naming that worktree", async () => {
    const worktree = path.join(await createTempDir("workcell-export-wt-"), "wt");
    git(repo, "worktree", "add", "--quiet", "-b", "elsewhere", worktree, "main");
    const response = await exportTo("elsewhere");
    expect(response.status).toBe(409);
    expect(response.body.error.details).toMatchObject({ reason: "checked_out", worktree });
    expect(git(repo, "rev-parse", "elsewhere")).toBe(git(repo, "rev-parse", "main"));
  });
});

describe("the CLI's export", () => {
  it("says loudly, on stderr, when uncommitted files were left behind", async () => {
    await test.api("POST", `/v1/workers/${worker.id}/exec`, {
      command: "echo draft > draft.txt && echo more >> README.md",
    });
    const result = await runCli(test, "export", worker.id, "--branch", "with-drafts");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`exported ${workerCommit.slice(0, 12)} to with-drafts in ${repo}\n`);
    expect(result.stderr).toBe(
      "warning: 2 files with uncommitted changes in the worker were NOT exported. Commit them in the worker (git_commit) and export again.\n",
    );
  });
});
