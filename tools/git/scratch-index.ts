import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runProcess, type RunResult } from "../shell/run-process.js";

const SCRATCH_TIMEOUT_MS = 120_000;

/** Runs git with a throwaway index; the agent's own index is never touched. */
export type ScratchGit = (args: readonly string[], maxOutputBytes?: number) => Promise<RunResult>;

/**
 * Gives `work` a git runner whose index is a private copy holding HEAD plus every
 * non-ignored file of the working tree (tracked, modified or new), then deletes it.
 */
export async function withScratchIndex<T>(root: string, work: (git: ScratchGit) => Promise<T>): Promise<T> {
  const scratch = await mkdtemp(path.join(tmpdir(), "workcell-index-"));
  const env = { GIT_INDEX_FILE: path.join(scratch, "index"), GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" };
  const git: ScratchGit = (args, maxOutputBytes = 1024 * 1024) =>
    runProcess({ command: ["git", ...args], cwd: root, env, timeoutMs: SCRATCH_TIMEOUT_MS, maxOutputBytes });
  try {
    for (const step of [
      ["read-tree", "HEAD"],
      ["add", "--all", "--", "."],
    ]) {
      const run = await git(step);
      if (run.exitCode !== 0) throw new Error(`git ${step[0]} failed: ${run.stderr.trim()}`);
    }
    return await work(git);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The tree id of the working tree's content (what is not ignored): equal trees, equal content. */
export async function workspaceFingerprint(root: string): Promise<string> {
  return withScratchIndex(root, async (git) => {
    const run = await git(["write-tree"]);
    if (run.exitCode !== 0) throw new Error(`git write-tree failed: ${run.stderr.trim()}`);
    return run.stdout.trim();
  });
}
