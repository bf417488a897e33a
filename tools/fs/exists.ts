import { statSync } from "node:fs";

// The tools server keeps a root real uid and works under the sandbox user's effective ids
// (tools/identity/sandbox-user.ts). access(2), and so fs.existsSync and fs.access, checks
// with the *real* ids: root without any file capability, which cannot even enter a
// workspace closed to others. stat(2) checks with the effective ids, as every other call does.

/** Whether `target` exists (following symlinks), as the sandbox user sees it. */
export function pathExists(target: string): boolean {
  return statSync(target, { throwIfNoEntry: false }) !== undefined;
}

/** Whether `target` is a file with an execute bit set, as the sandbox user sees it. */
export function isExecutableFile(target: string): boolean {
  try {
    const stats = statSync(target);
    return stats.isFile() && (stats.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}
