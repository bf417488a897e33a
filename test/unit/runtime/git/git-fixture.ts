import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** Runs git in `cwd` with a test identity; its trimmed output. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", ["-c", "user.email=t@example.invalid", "-c", "user.name=t", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

/** A fresh directory (real path) holding `repo/`: a repository on `main` with one commit of a.txt. */
export async function repoWithOneCommit(prefix: string): Promise<{ root: string; repo: string }> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), prefix)));
  const repo = path.join(root, "repo");
  await mkdir(repo);
  git(repo, "init", "-q", "-b", "main");
  await writeFile(path.join(repo, "a.txt"), "one\n");
  git(repo, "add", "a.txt");
  git(repo, "commit", "-qm", "first");
  return { root, repo };
}
