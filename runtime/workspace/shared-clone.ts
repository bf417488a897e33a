import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error.js";
import { runHostGit } from "../git/host-git.js";

/**
 * Creates `workspace` as a shared clone of `repo` (objects borrowed through alternates,
 * no hooks copied) checked out on `branch` at `baseCommit`. Runs before any container can
 * see the directory, so the host never runs git where the agent has written. On failure
 * nothing is left behind.
 */
export async function createSharedClone(repo: string, workspace: string, branch: string, baseCommit: string): Promise<void> {
  await mkdir(path.dirname(workspace), { recursive: true, mode: 0o700 });
  try {
    const clone = await runHostGit(path.dirname(workspace), ["clone", "--quiet", "--shared", "--no-checkout", "--template=", "--", repo, workspace]);
    if (clone.exitCode !== 0) throw new AppError("internal", `Could not clone ${repo}: ${clone.stderr.trim()}`);
    const checkout = await runHostGit(workspace, ["checkout", "--quiet", "-b", branch, baseCommit]);
    if (checkout.exitCode !== 0) throw new AppError("internal", `Could not check out ${baseCommit} on ${branch}: ${checkout.stderr.trim()}`);
  } catch (error) {
    // A mounted workspace image cannot be removed here (EBUSY); its owner unmounts and removes it.
    await rm(workspace, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * Materialises a workspace in an existing empty directory (a warm pool slot, already
 * mounted in its container) as a standalone clone: the container has no mount for the
 * source's objects, so they are copied, never hardlinked (`--no-hardlinks`). A hardlinked
 * object would share its inode with the source repository, and handing the workspace to
 * the sandbox user would then give it the user's own object files.
 */
export async function createStandaloneClone(repo: string, workspace: string, branch: string, baseCommit: string): Promise<void> {
  const clone = await runHostGit(path.dirname(workspace), ["clone", "--quiet", "--no-checkout", "--template=", "--no-hardlinks", "--", repo, workspace]);
  if (clone.exitCode !== 0) throw new AppError("internal", `Could not clone ${repo}: ${clone.stderr.trim()}`);
  const checkout = await runHostGit(workspace, ["checkout", "--quiet", "-b", branch, baseCommit]);
  if (checkout.exitCode !== 0) throw new AppError("internal", `Could not check out ${baseCommit} on ${branch}: ${checkout.stderr.trim()}`);
}

export { chownTree } from "./chown-tree.js";
