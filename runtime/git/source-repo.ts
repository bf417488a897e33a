import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error.js";
import { runHostGit, runHostGitOrThrow } from "./host-git.js";
import { readHeadOnDisk } from "./read-head.js";

/** What workcell needs to know about a user's repository before borrowing from it. */
export interface SourceRepo {
  readonly path: string;
  /** The repository's object directory and any alternates it borrows from, all absolute. */
  readonly objectDirs: readonly string[];
  readonly baseCommit: string;
}

/**
 * Checks that `repo` is a git repository and resolves `baseRef` to a commit there. Errors
 * say what was expected, what was found and how to fix it.
 */
export async function inspectSourceRepo(repo: string, baseRef: string): Promise<SourceRepo> {
  const stats = await stat(repo).catch(() => undefined);
  if (stats === undefined || !stats.isDirectory()) {
    throw new AppError(
      "invalid_input",
      `repo: expected an existing directory, but "${repo}" does not exist or is not a directory.`,
      { details: { field: "repo" } },
    );
  }
  if (baseRef.startsWith("-")) {
    throw new AppError("invalid_input", `baseRef: expected a branch, tag or commit, received "${baseRef}".`, {
      details: { field: "baseRef" },
    });
  }
  if (baseRef === "HEAD") {
    const head = await readHeadOnDisk(repo);
    if (head !== undefined)
      return {
        path: repo,
        objectDirs: await collectObjectDirs(path.join(head.commonDir, "objects")),
        baseCommit: head.commit,
      };
  }
  // One git process answers both questions: the common directory is printed first, and only
  // a repository gets that far, so an empty answer means "not a repository".
  const answer = await runHostGit(repo, [
    "rev-parse",
    "--path-format=absolute",
    "--git-common-dir",
    "--verify",
    "--end-of-options",
    `${baseRef}^{commit}`,
  ]);
  const [commonDir = "", baseCommit = ""] = answer.stdout.split("\n").map((line) => line.trim());
  if (commonDir === "") {
    throw new AppError(
      "invalid_input",
      `repo: expected a git repository, but "${repo}" is not one. Run 'git init' there and commit, or pass the path of a repository.`,
      { details: { field: "repo" } },
    );
  }
  if (answer.exitCode !== 0 || baseCommit === "") {
    throw new AppError(
      "invalid_input",
      `baseRef: "${baseRef}" does not name a commit in ${repo}. Use a branch, tag or commit that exists there (a new repository needs a first commit).`,
      { details: { field: "baseRef" } },
    );
  }
  return { path: repo, objectDirs: await collectObjectDirs(path.join(commonDir, "objects")), baseCommit };
}

/** The object directory and, transitively, every alternate it lists. */
async function collectObjectDirs(objectDir: string, seen = new Set<string>()): Promise<string[]> {
  if (seen.has(objectDir)) return [];
  seen.add(objectDir);
  const alternates = await readFile(path.join(objectDir, "info", "alternates"), "utf8").catch(() => "");
  const result = [objectDir];
  for (const line of alternates.split("\n")) {
    const entry = line.trim();
    if (entry === "" || entry.startsWith("#")) continue;
    result.push(...(await collectObjectDirs(path.resolve(objectDir, entry), seen)));
  }
  return result;
}

/** The ref that keeps a worker's base commit alive in the source repository. */
export function baseRefName(workerId: string): string {
  return `refs/workcell/${workerId}/base`;
}

/** Pins the base commit so `git gc` in the source repository cannot prune borrowed objects. */
export async function pinBase(repo: string, workerId: string, commit: string): Promise<void> {
  await runHostGitOrThrow(
    repo,
    ["update-ref", baseRefName(workerId), commit],
    `Could not create ${baseRefName(workerId)} in ${repo}`,
  );
}

/** Drops the pin; a missing ref is fine. */
export async function unpinBase(repo: string, workerId: string): Promise<void> {
  await runHostGit(repo, ["update-ref", "-d", baseRefName(workerId)]);
}
