import { chown, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, repoWithOneCommit } from "./git-fixture.js";
import { readHeadOnDisk } from "../../../../runtime/git/read-head.js";

/** What git itself answers for HEAD: the common directory and the commit. */
const gitsAnswer = (repo: string) => {
  const [commonDir, commit] = git(
    repo,
    "rev-parse",
    "--path-format=absolute",
    "--git-common-dir",
    "--verify",
    "HEAD^{commit}",
  ).split("\n");
  return { commonDir, commit };
};

describe("readHeadOnDisk", () => {
  let root: string;
  let repo: string;
  beforeAll(async () => {
    ({ root, repo } = await repoWithOneCommit("read-head-"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("answers what git answers for a branch that is loose, packed, packed then moved, and a detached HEAD", async () => {
    expect(await readHeadOnDisk(repo)).toEqual(gitsAnswer(repo));
    git(repo, "pack-refs", "--all");
    expect(await readHeadOnDisk(repo)).toEqual(gitsAnswer(repo));
    // A commit after packing writes a loose ref again, which wins over the packed line.
    git(repo, "commit", "-q", "--allow-empty", "-m", "second");
    const moved = await readHeadOnDisk(repo);
    expect(moved).toEqual(gitsAnswer(repo));
    git(repo, "pack-refs", "--all");
    expect(await readHeadOnDisk(repo)).toEqual(moved);
    git(repo, "checkout", "-q", "--detach", "HEAD~1");
    const detached = await readHeadOnDisk(repo);
    expect(detached).toEqual(gitsAnswer(repo));
    expect(detached?.commit).not.toBe(moved?.commit);
    git(repo, "checkout", "-q", "main");
  });

  it("finds the repository behind a .git file: a linked worktree on its own branch, and a separate git dir", async () => {
    const worktree = path.join(root, "worktree");
    git(repo, "worktree", "add", "-q", "-b", "side", worktree, "HEAD~1");
    const linked = await readHeadOnDisk(worktree);
    expect(linked).toEqual(gitsAnswer(worktree));
    expect(linked?.commonDir).toBe(path.join(repo, ".git"));
    expect(linked?.commit).toBe(git(repo, "rev-parse", "HEAD~1"));

    const separate = path.join(root, "separate");
    await mkdir(separate);
    git(separate, "init", "-q", "--separate-git-dir", path.join(root, "separate.git"));
    git(separate, "commit", "-q", "--allow-empty", "-m", "only");
    expect(await readHeadOnDisk(separate)).toEqual(gitsAnswer(separate));
  });

  it("answers nothing where git must: an unborn branch, a subdirectory, a bare repository, extensions, a symbolic ref, a dubious HEAD", async () => {
    const unborn = path.join(root, "unborn");
    await mkdir(unborn);
    git(unborn, "init", "-q");
    expect(await readHeadOnDisk(unborn)).toBeUndefined();

    await mkdir(path.join(repo, "sub"), { recursive: true });
    expect(await readHeadOnDisk(path.join(repo, "sub"))).toBeUndefined();

    const bare = path.join(root, "bare.git");
    git(root, "clone", "-q", "--bare", repo, bare);
    expect(await readHeadOnDisk(bare)).toBeUndefined();

    const sha256 = path.join(root, "sha256");
    await mkdir(sha256);
    git(sha256, "init", "-q", "--object-format=sha256");
    git(sha256, "commit", "-q", "--allow-empty", "-m", "only");
    expect(await readHeadOnDisk(sha256)).toBeUndefined();

    const symbolic = path.join(root, "symbolic");
    git(root, "clone", "-q", repo, symbolic);
    git(symbolic, "symbolic-ref", "refs/heads/alias", "refs/heads/main");
    git(symbolic, "symbolic-ref", "HEAD", "refs/heads/alias");
    expect(await readHeadOnDisk(symbolic)).toBeUndefined();

    // A HEAD naming a ref outside refs/heads, or one that climbs out of the directory.
    const odd = path.join(root, "odd");
    git(root, "clone", "-q", repo, odd);
    await writeFile(path.join(odd, ".git", "HEAD"), "ref: refs/heads/../../../../etc/passwd\n");
    expect(await readHeadOnDisk(odd)).toBeUndefined();
    await writeFile(path.join(odd, ".git", "HEAD"), "ref: refs/remotes/origin/main\n");
    expect(await readHeadOnDisk(odd)).toBeUndefined();
  });

  it("answers nothing for a repository another user owns (git's safe.directory rule) or reached through a symlinked .git", async () => {
    const linkedDotGit = path.join(root, "linked-dot-git");
    await mkdir(linkedDotGit);
    await symlink(path.join(repo, ".git"), path.join(linkedDotGit, ".git"));
    expect(await readHeadOnDisk(linkedDotGit)).toBeUndefined();

    if (process.getuid?.() !== 0) return;
    const foreign = path.join(root, "foreign");
    git(root, "clone", "-q", repo, foreign);
    await chown(foreign, 12345, 12345);
    expect(await readHeadOnDisk(foreign)).toBeUndefined();
  });
});
