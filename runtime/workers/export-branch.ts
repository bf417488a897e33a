import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { ContainerDriver } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";
import { runHostGit } from "../git/host-git.js";
import { z } from "zod";
import type { Worker } from "./worker.js";

/** Deadline of writing the bundle in the container (the other steps use the driver's default). */
const BUNDLE_DEADLINE_MS = 20 * 60_000;
const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** The answer of an export: the branch now exists in the source repository. */
export const ExportResultSchema = z.object({
  repo: z.string(),
  branch: z.string(),
  commit: z.string(),
  /** Files with uncommitted changes in the workspace; they are not part of the export. */
  uncommittedFiles: z.number().int(),
});
export type ExportResult = z.infer<typeof ExportResultSchema>;

/**
 * Brings the worker's branch into the source repository through a data-only path: the
 * container writes a git bundle to its stdout, the host stores it in a private directory,
 * verifies it and fetches it. The host never runs git in the workspace. A branch that
 * exists already is only moved forward (or anywhere, if this worker put it there), and a
 * branch checked out in one of the repository's worktrees is never moved.
 */
export async function exportBranch(
  driver: ContainerDriver,
  containerId: string,
  worker: Worker,
  targetBranch: string,
  scratchRoot: string,
  signal?: AbortSignal,
): Promise<ExportResult> {
  const repo = worker.repo;
  const format = await runHostGit(repo, ["check-ref-format", "--branch", targetBranch]);
  if (format.exitCode !== 0 || targetBranch.startsWith("-")) {
    throw new AppError(
      "invalid_input",
      `branch: "${targetBranch}" is not a valid branch name. Use something like workcell/my-change.`,
      { details: { field: "branch" } },
    );
  }
  const head = await gitInContainer(driver, containerId, signal, [
    "rev-parse",
    "--verify",
    "--quiet",
    `refs/heads/${worker.branch}^{commit}`,
  ]);
  const commit = head.stdout.trim();
  if (head.exitCode !== 0 || !SHA.test(commit)) {
    throw new AppError(
      "conflict",
      `The worker's branch ${worker.branch} no longer exists in its workspace. Recreate it inside the worker (git branch ${worker.branch} <commit>) and export again.`,
    );
  }
  const status = await gitInContainer(driver, containerId, signal, ["status", "--porcelain"]);
  const uncommittedFiles = status.stdout.split("\n").filter((line) => line.trim() !== "").length;

  const targetRef = `refs/heads/${targetBranch}`;
  const existing = await runHostGit(repo, ["rev-parse", "--verify", "--quiet", targetRef]);
  const current = existing.exitCode === 0 ? existing.stdout.trim() : undefined;
  if (current === commit) return { repo, branch: targetBranch, commit, uncommittedFiles };
  const worktree = await worktreeWithBranch(repo, targetRef);
  if (worktree !== undefined) throw checkedOutConflict(targetBranch, repo, worktree);
  const ours =
    current !== undefined && worker.lastExport?.branch === targetBranch && worker.lastExport.commit === current;

  // The commit comes in under a private ref first, so that the decision below is git's own
  // ancestry check and the branch itself moves in one compare-and-swap.
  const stagingRef = `refs/workcell/${worker.id}/export`;
  try {
    if (commit !== worker.baseCommit)
      await fetchWorkerBranch(driver, containerId, worker, commit, stagingRef, scratchRoot, signal);
    if (current !== undefined && !ours && !(await isAncestor(repo, current, commit)))
      throw branchConflict(targetBranch, repo);
    const update = await runHostGit(repo, ["update-ref", targetRef, commit, current ?? ""]);
    if (update.exitCode !== 0) {
      throw new AppError(
        "conflict",
        `Branch ${targetBranch} in ${repo} changed while the export ran (${update.stderr.trim()}). Export again.`,
        { details: { branch: targetBranch } },
      );
    }
    return { repo, branch: targetBranch, commit, uncommittedFiles };
  } finally {
    await runHostGit(repo, ["update-ref", "-d", stagingRef]);
  }
}

/** Has the container write a bundle of the worker's branch, verifies it on the host and fetches it into `ref`. */
async function fetchWorkerBranch(
  driver: ContainerDriver,
  containerId: string,
  worker: Worker,
  commit: string,
  ref: string,
  scratchRoot: string,
  signal?: AbortSignal,
): Promise<void> {
  const repo = worker.repo;
  const scratch = await mkdtemp(path.join(scratchRoot, "export-"));
  try {
    const bundle = path.join(scratch, "worker.bundle");
    const sink = createWriteStream(bundle, { mode: 0o600 });
    const created = await driver.exec(containerId, {
      argv: [
        "git",
        "-C",
        "/workspace",
        "bundle",
        "create",
        "--quiet",
        "-",
        `refs/heads/${worker.branch}`,
        `^${worker.baseCommit}`,
      ],
      stdoutSink: sink,
      timeoutMs: BUNDLE_DEADLINE_MS,
      ...(signal === undefined ? {} : { signal }),
    });
    if (created.exitCode !== 0) {
      throw new AppError(
        "internal",
        `The worker could not write a bundle of ${worker.branch}: ${created.stderr.toString("utf8").trim()}`,
      );
    }
    await verifyBundle(repo, bundle, worker.branch, commit);
    const fetched = await runHostGit(repo, [
      "fetch",
      "--quiet",
      "--no-tags",
      "--no-write-fetch-head",
      bundle,
      `+refs/heads/${worker.branch}:${ref}`,
    ]);
    if (fetched.exitCode !== 0)
      throw new AppError(
        "internal",
        `Fetching the worker's bundle into ${repo} failed (exit code ${fetched.exitCode}): ${fetched.stderr.trim() || "git said nothing"}`,
      );
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Whether `ancestor` is reachable from `descendant` in the repository (so moving a branch from one to the other loses nothing). */
async function isAncestor(repo: string, ancestor: string, descendant: string): Promise<boolean> {
  const result = await runHostGit(repo, ["merge-base", "--is-ancestor", ancestor, descendant]);
  if (result.exitCode === 0) return true;
  if (result.exitCode === 1) return false;
  throw new AppError(
    "internal",
    `Could not compare ${ancestor.slice(0, 12)} with ${descendant.slice(0, 12)} in ${repo}: ${result.stderr.trim() || `git exited with ${result.exitCode}`}`,
  );
}

/** The worktree of the repository (its main one included) that has `ref` checked out, if any. */
async function worktreeWithBranch(repo: string, ref: string): Promise<string | undefined> {
  const list = await runHostGit(repo, ["worktree", "list", "--porcelain"]);
  let worktree: string | undefined;
  for (const line of list.stdout.split("\n")) {
    if (line.startsWith("worktree ")) worktree = line.slice("worktree ".length);
    else if (line === `branch ${ref}`) return worktree ?? repo;
  }
  return undefined;
}

/** Checks the bundle is well-formed, complete against the source repo, and holds exactly the expected ref. */
async function verifyBundle(repo: string, bundle: string, branch: string, commit: string): Promise<void> {
  const verify = await runHostGit(repo, ["bundle", "verify", "--quiet", bundle]);
  if (verify.exitCode !== 0)
    throw new AppError("internal", `The worker's bundle failed verification: ${verify.stderr.trim()}`);
  const heads = await runHostGit(repo, ["bundle", "list-heads", bundle]);
  const lines = heads.stdout.split("\n").filter((line) => line.trim() !== "");
  if (lines.length !== 1 || lines[0] !== `${commit} refs/heads/${branch}`) {
    throw new AppError(
      "internal",
      `The worker's bundle holds unexpected refs (${lines.length}); expected only ${branch} at ${commit}.`,
    );
  }
}

function branchConflict(branch: string, repo: string): AppError {
  return new AppError(
    "conflict",
    `Branch ${branch} already exists in ${repo} and has commits the worker's branch does not, so moving it would lose them. Export under another name with {"branch": "..."} and merge from there, or delete that branch first if its commits are not needed.`,
    { details: { branch, reason: "diverged" } },
  );
}

function checkedOutConflict(branch: string, repo: string, worktree: string): AppError {
  return new AppError(
    "conflict",
    `Branch ${branch} is checked out in ${worktree}; moving it would change what that working tree's files are compared against. Export under another name with {"branch": "..."}, then merge it there (git merge <that branch>).`,
    { details: { branch, reason: "checked_out", worktree } },
  );
}

function gitInContainer(
  driver: ContainerDriver,
  containerId: string,
  signal: AbortSignal | undefined,
  args: readonly string[],
) {
  return driver
    .exec(containerId, { argv: ["git", "-C", "/workspace", ...args], ...(signal === undefined ? {} : { signal }) })
    .then((result) => ({
      exitCode: result.exitCode,
      stdout: result.stdout.toString("utf8"),
    }));
}
