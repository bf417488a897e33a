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
 * exists already is only moved forward, or moved at all if this worker put it there.
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
    throw new AppError("invalid_input", `branch: "${targetBranch}" is not a valid branch name. Use something like workcell/my-change.`, { details: { field: "branch" } });
  }
  const head = await gitInContainer(driver, containerId, signal, ["rev-parse", "--verify", "--quiet", `refs/heads/${worker.branch}^{commit}`]);
  const commit = head.stdout.trim();
  if (head.exitCode !== 0 || !SHA.test(commit)) {
    throw new AppError("conflict", `The worker's branch ${worker.branch} no longer exists in its workspace. Recreate it inside the worker (git branch ${worker.branch} <commit>) and export again.`);
  }
  const status = await gitInContainer(driver, containerId, signal, ["status", "--porcelain"]);
  const uncommittedFiles = status.stdout.split("\n").filter((line) => line.trim() !== "").length;

  const targetRef = `refs/heads/${targetBranch}`;
  const existing = await runHostGit(repo, ["rev-parse", "--verify", "--quiet", targetRef]);
  const current = existing.exitCode === 0 ? existing.stdout.trim() : undefined;
  const ours = current !== undefined && worker.lastExport?.branch === targetBranch && worker.lastExport.commit === current;

  if (current === commit) return { repo, branch: targetBranch, commit, uncommittedFiles };
  if (commit === worker.baseCommit) {
    if (current !== undefined && !ours) throw branchConflict(targetBranch, repo);
    const update = await runHostGit(repo, ["update-ref", targetRef, commit, current ?? ""]);
    if (update.exitCode !== 0) throw new AppError("conflict", `Could not set ${targetBranch} in ${repo}: ${update.stderr.trim()}`);
    return { repo, branch: targetBranch, commit, uncommittedFiles };
  }

  const scratch = await mkdtemp(path.join(scratchRoot, "export-"));
  try {
    const bundle = path.join(scratch, "worker.bundle");
    const sink = createWriteStream(bundle, { mode: 0o600 });
    const created = await driver.exec(containerId, {
      argv: ["git", "-C", "/workspace", "bundle", "create", "--quiet", "-", `refs/heads/${worker.branch}`, `^${worker.baseCommit}`],
      stdoutSink: sink,
      timeoutMs: BUNDLE_DEADLINE_MS,
      ...(signal === undefined ? {} : { signal }),
    });
    if (created.exitCode !== 0) {
      throw new AppError("internal", `The worker could not write a bundle of ${worker.branch}: ${created.stderr.toString("utf8").trim()}`);
    }
    await verifyBundle(repo, bundle, worker.branch, commit);
    const refspec = `${ours ? "+" : ""}refs/heads/${worker.branch}:${targetRef}`;
    const fetched = await runHostGit(repo, ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", bundle, refspec]);
    if (fetched.exitCode !== 0) {
      if (/non-fast-forward|rejected|checked out/.test(fetched.stderr)) throw branchConflict(targetBranch, repo, fetched.stderr.trim());
      throw new AppError("internal", `Fetching the worker's bundle into ${repo} failed: ${fetched.stderr.trim()}`);
    }
    return { repo, branch: targetBranch, commit, uncommittedFiles };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Checks the bundle is well-formed, complete against the source repo, and holds exactly the expected ref. */
async function verifyBundle(repo: string, bundle: string, branch: string, commit: string): Promise<void> {
  const verify = await runHostGit(repo, ["bundle", "verify", "--quiet", bundle]);
  if (verify.exitCode !== 0) throw new AppError("internal", `The worker's bundle failed verification: ${verify.stderr.trim()}`);
  const heads = await runHostGit(repo, ["bundle", "list-heads", bundle]);
  const lines = heads.stdout.split("\n").filter((line) => line.trim() !== "");
  if (lines.length !== 1 || lines[0] !== `${commit} refs/heads/${branch}`) {
    throw new AppError("internal", `The worker's bundle holds unexpected refs (${lines.length}); expected only ${branch} at ${commit}.`);
  }
}

function branchConflict(branch: string, repo: string, detail?: string): AppError {
  return new AppError(
    "conflict",
    `Branch ${branch} already exists in ${repo} and cannot be moved to the worker's commit without losing commits${detail ? ` (${detail})` : ""}. Export under another name with {"branch": "..."}, or delete that branch first.`,
    { details: { branch } },
  );
}

function gitInContainer(driver: ContainerDriver, containerId: string, signal: AbortSignal | undefined, args: readonly string[]) {
  return driver.exec(containerId, { argv: ["git", "-C", "/workspace", ...args], ...(signal === undefined ? {} : { signal }) }).then((result) => ({
    exitCode: result.exitCode,
    stdout: result.stdout.toString("utf8"),
  }));
}
