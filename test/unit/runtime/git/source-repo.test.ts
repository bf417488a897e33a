import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, repoWithOneCommit } from "./git-fixture.js";
import { inspectSourceRepo } from "../../../../runtime/git/source-repo.js";

describe("inspectSourceRepo", () => {
  let root: string;
  let repo: string;
  let head: string;
  let first: string;
  beforeAll(async () => {
    ({ root, repo } = await repoWithOneCommit("source-repo-"));
    first = git(repo, "rev-parse", "HEAD");
    await writeFile(path.join(repo, "a.txt"), "two\n");
    git(repo, "commit", "-qam", "second");
    git(repo, "tag", "-a", "-m", "annotated", "v1", first);
    head = git(repo, "rev-parse", "HEAD");
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("resolves HEAD, a branch and an annotated tag to commits, with the object directory", async () => {
    const atHead = await inspectSourceRepo(repo, "HEAD");
    expect(atHead).toEqual({ path: repo, objectDirs: [path.join(repo, ".git", "objects")], baseCommit: head });
    expect((await inspectSourceRepo(repo, "main")).baseCommit).toBe(head);
    // The tag object is peeled to the commit it names.
    expect((await inspectSourceRepo(repo, "v1")).baseCommit).toBe(first);
  });

  it("follows alternates, transitively, from a subdirectory of a borrowing clone", async () => {
    const borrower = path.join(root, "borrower");
    git(root, "clone", "-q", "--shared", repo, borrower);
    await mkdir(path.join(borrower, "sub"));
    const inspected = await inspectSourceRepo(path.join(borrower, "sub"), "HEAD");
    expect(inspected.objectDirs).toEqual([path.join(borrower, ".git", "objects"), path.join(repo, ".git", "objects")]);
    expect(inspected.baseCommit).toBe(head);
  });

  it("says which field is wrong, and why, for each bad input", async () => {
    await expect(inspectSourceRepo(path.join(root, "absent"), "HEAD")).rejects.toThrow(
      /repo: expected an existing directory/,
    );
    const plain = path.join(root, "plain");
    await mkdir(plain);
    await expect(inspectSourceRepo(plain, "HEAD")).rejects.toThrow(
      /repo: expected a git repository, but ".*plain" is not one/,
    );
    await expect(inspectSourceRepo(repo, "no-such-branch")).rejects.toThrow(
      /baseRef: "no-such-branch" does not name a commit/,
    );
    await expect(inspectSourceRepo(repo, "--output=/tmp/x")).rejects.toThrow(
      /baseRef: expected a branch, tag or commit/,
    );
    // A tree is not a commit.
    await expect(inspectSourceRepo(repo, "HEAD^{tree}")).rejects.toThrow(/does not name a commit/);
    const unborn = path.join(root, "unborn");
    await mkdir(unborn);
    git(unborn, "init", "-q");
    await expect(inspectSourceRepo(unborn, "HEAD")).rejects.toThrow(/a new repository needs a first commit/);
  });
});
