import { withScratchIndex } from "../git/scratch-index.js";
import type { DiffFile, DiffResult } from "../../contract/control.js";
import type { ControlFailure } from "../../contract/sandbox-error.js";

const MAX_PATCH_BYTES = 8 * 1024 * 1024;

/**
 * Everything that changed since `baseCommit` — commits, staged and unstaged edits and new
 * untracked (not ignored) files — computed with a throwaway index so the agent's own index
 * is never touched.
 */
export async function diffSinceBase(root: string, baseCommit: string): Promise<DiffResult | ControlFailure> {
  try {
    return await withScratchIndex(root, async (git) => {
      const head = await git(["rev-parse", "--verify", "HEAD"]);
      const common = ["diff", "--cached", "--no-ext-diff", "--no-textconv", "--no-color", "-M", baseCommit];
      const numstat = await git([...common, "--numstat", "-z"], 64 * 1024 * 1024);
      const status = await git([...common, "--name-status", "-z"], 64 * 1024 * 1024);
      const patch = await git([...common, "--patch"], MAX_PATCH_BYTES);
      if (numstat.exitCode !== 0 || status.exitCode !== 0 || patch.exitCode !== 0) {
        return { error: `git diff failed: ${(numstat.stderr || status.stderr || patch.stderr).trim()}` };
      }
      return {
        baseCommit,
        head: head.stdout.trim(),
        files: mergeDiffFiles(parseNameStatus(status.stdout), parseNumstat(numstat.stdout)),
        patch: patch.stdout,
        truncated: patch.truncated,
      };
    });
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

const STATUS_NAMES: Record<string, DiffFile["status"]> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  C: "copied",
  T: "type_changed",
};

/** Parses `git diff --name-status -z` into path, status and, for renames, the old path. */
export function parseNameStatus(output: string): { path: string; status: DiffFile["status"]; oldPath?: string }[] {
  const fields = output.split("\0");
  const entries: { path: string; status: DiffFile["status"]; oldPath?: string }[] = [];
  for (let i = 0; i < fields.length;) {
    const code = fields[i++];
    if (!code) continue;
    const status = STATUS_NAMES[code[0] ?? ""] ?? "modified";
    if (status === "renamed" || status === "copied") {
      const oldPath = fields[i++] ?? "";
      entries.push({ path: fields[i++] ?? "", status, oldPath });
    } else {
      entries.push({ path: fields[i++] ?? "", status });
    }
  }
  return entries;
}

/** Parses `git diff --numstat -z` into additions/deletions per (new) path. */
export function parseNumstat(output: string): Map<string, { additions: number; deletions: number }> {
  const counts = new Map<string, { additions: number; deletions: number }>();
  const fields = output.split("\0");
  for (let i = 0; i < fields.length;) {
    const head = fields[i++];
    if (!head) continue;
    const [added = "-", deleted = "-", inlinePath = ""] = head.split("\t");
    let file = inlinePath;
    if (inlinePath === "") {
      i += 1; // old path of a rename
      file = fields[i++] ?? "";
    }
    counts.set(file, { additions: Number.parseInt(added, 10) || 0, deletions: Number.parseInt(deleted, 10) || 0 });
  }
  return counts;
}

function mergeDiffFiles(
  statuses: ReturnType<typeof parseNameStatus>,
  counts: ReturnType<typeof parseNumstat>,
): DiffFile[] {
  return statuses.map((entry) => ({ ...entry, ...(counts.get(entry.path) ?? { additions: 0, deletions: 0 }) }));
}
