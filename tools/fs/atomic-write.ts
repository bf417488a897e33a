import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { isErrno } from "./resolve-inside.js";

/**
 * Writes `content` to `target` atomically: a temporary file in the same directory, then
 * rename. The rename replaces the directory entry, never the target of a symlink, and an
 * interrupted write leaves the old file intact. Existing file modes are kept.
 */
export async function writeFileAtomic(target: string, content: string | Buffer): Promise<void> {
  const directory = path.dirname(target);
  await mkdir(directory, { recursive: true });
  const mode = await stat(target).then((s) => s.mode & 0o7777, (error: unknown) => {
    if (isErrno(error, "ENOENT")) return 0o644;
    throw error;
  });
  const temporary = path.join(directory, `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    await handle.writeFile(content);
    await handle.close();
    await rename(temporary, target);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}
