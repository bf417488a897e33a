import { rm } from "node:fs/promises";
import { execa } from "execa";

/** Longest the fallback `rm -rf` may take. */
const RM_TIMEOUT_MS = 10 * 60_000;

/**
 * Deletes a directory tree the sandbox wrote, whatever it holds. Node's rm walks full paths
 * and fails on a chain deeper than PATH_MAX (ENAMETOOLONG) or too deeply nested (ELOOP);
 * coreutils `rm -rf` walks relative to open directories, so it is the fallback. It stays on
 * the tree's own filesystem.
 */
export async function removeTree(directory: string): Promise<void> {
  try {
    await rm(directory, { recursive: true, force: true });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENAMETOOLONG" && code !== "ELOOP" && code !== "ENOTEMPTY") throw error;
  }
  const removed = await execa("rm", ["-rf", "--one-file-system", "--", directory], {
    reject: false,
    timeout: RM_TIMEOUT_MS,
  });
  if (removed.exitCode !== 0) {
    throw new Error(
      `Could not delete ${directory}: rm -rf exited with ${removed.exitCode ?? "a timeout"} (${String(removed.stderr).slice(0, 500).trim()}). Delete it by hand and retry.`,
    );
  }
}
