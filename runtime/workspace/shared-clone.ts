import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error.js";
import { runHostGit } from "../git/host-git.js";
import { chownTree } from "./chown-tree.js";

/**
 * Creates `workspace` as a shared clone of `repo` (objects borrowed through alternates,
 * no hooks copied) checked out on `branch` at `baseCommit`. Runs before any container can
 * see the directory, so the host never runs git where the agent has written. On failure
 * nothing is left behind.
 */
export async function createSharedClone(
  repo: string,
  workspace: string,
  branch: string,
  baseCommit: string,
): Promise<void> {
  await mkdir(path.dirname(workspace), { recursive: true, mode: 0o700 });
  try {
    const clone = await runHostGit(path.dirname(workspace), [
      "clone",
      "--quiet",
      "--shared",
      "--no-checkout",
      "--template=",
      "--",
      repo,
      workspace,
    ]);
    if (clone.exitCode !== 0) throw new AppError("internal", `Could not clone ${repo}: ${clone.stderr.trim()}`);
    const checkout = await runHostGit(workspace, ["checkout", "--quiet", "-b", branch, baseCommit]);
    if (checkout.exitCode !== 0)
      throw new AppError("internal", `Could not check out ${baseCommit} on ${branch}: ${checkout.stderr.trim()}`);
  } catch (error) {
    // A mounted workspace image cannot be removed here (EBUSY); its owner unmounts and removes it.
    await rm(workspace, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * Materialises a workspace in an existing empty directory (a warm pool slot, already
 * mounted in its container) as a standalone clone: the container has no mount for the
 * source's objects, so they are fetched into a pack of its own, never hardlinked. A
 * hardlinked object would share its inode with the source repository, and handing the
 * workspace to the sandbox user would then give it the user's own object files.
 */
export async function createStandaloneClone(
  repo: string,
  workspace: string,
  branch: string,
  baseCommit: string,
): Promise<void> {
  // --no-local: the objects arrive as one pack rather than a copy of every loose object, so
  // handing `.git` to the sandbox user on claim walks a few dozen entries, not thousands.
  const clone = await runHostGit(path.dirname(workspace), [
    "clone",
    "--quiet",
    "--no-local",
    "--no-checkout",
    "--template=",
    "--",
    repo,
    workspace,
  ]);
  if (clone.exitCode !== 0) throw new AppError("internal", `Could not clone ${repo}: ${clone.stderr.trim()}`);
  const checkout = await runHostGit(workspace, ["checkout", "--quiet", "-b", branch, baseCommit]);
  if (checkout.exitCode !== 0)
    throw new AppError("internal", `Could not check out ${baseCommit} on ${branch}: ${checkout.stderr.trim()}`);
}

/**
 * A workspace cloned ahead of any request (a repository pool's slot), on the branch its
 * worker gets by default; `repo` is a real path, where `commit` is pinned under `workerId`.
 */
export interface PooledCheckout {
  readonly repo: string;
  readonly commit: string;
  readonly branch: string;
  /** The id the slot set aside for the worker that claims it. */
  readonly workerId: string;
}

/** What a claimed pooled workspace must become (the same repository as the slot's): what a cold clone would give. */
export interface CheckoutTarget {
  readonly repo: string;
  readonly branch: string;
  readonly baseCommit: string;
  /** A ref in `repo` that names baseCommit (the worker's pin), fetched by name when the slot is behind. */
  readonly baseRef: string;
}

/**
 * Turns a pooled workspace into a worker's. When the slot was cloned at the commit asked
 * for on the worker's branch (the default name), nothing changes; on another branch, its
 * branch is renamed and only `.git` is handed back to `owner` (nothing in the work tree
 * changed). Otherwise the commit is fetched from the source, checked out on the worker's
 * branch and the whole tree handed back. Runs before anything untrusted has run in the
 * container (its only process is workcell's own tools server), so the host may run git there.
 */
export async function adoptPooledCheckout(
  workspace: string,
  slot: PooledCheckout,
  target: CheckoutTarget,
  owner: { uid: number; gid: number } | undefined,
): Promise<"kept" | "renamed" | "fetched"> {
  // The tree is the sandbox user's already: without this, git refuses a repository another user owns.
  const trusted = ["-c", `safe.directory=${workspace}`];
  const current = slot.commit === target.baseCommit;
  const sameBranch = slot.branch === target.branch;
  if (current && sameBranch) return "kept";
  const steps: [string[], string][] = [];
  if (current) {
    steps.push([
      [...trusted, "branch", "-m", slot.branch, target.branch],
      `Could not name the pooled workspace's branch ${target.branch}`,
    ]);
  } else {
    steps.push(
      [
        [...trusted, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", target.repo, target.baseRef],
        `Could not fetch ${target.baseCommit} from ${target.repo}`,
      ],
      [
        // -B on the slot's own branch, which moves to the commit.
        [...trusted, "checkout", "--quiet", sameBranch ? "-B" : "-b", target.branch, target.baseCommit],
        `Could not check out ${target.baseCommit} on ${target.branch}`,
      ],
    );
    if (!sameBranch)
      steps.push([[...trusted, "branch", "-D", slot.branch], `Could not delete the slot's branch ${slot.branch}`]);
  }
  for (const [args, message] of steps) {
    const result = await runHostGit(workspace, args);
    if (result.exitCode !== 0) throw new AppError("internal", `${message}: ${result.stderr.trim()}`);
  }
  if (owner !== undefined) await chownTree(current ? path.join(workspace, ".git") : workspace, owner.uid, owner.gid);
  return current ? "renamed" : "fetched";
}

export { chownTree } from "./chown-tree.js";
