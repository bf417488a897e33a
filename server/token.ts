import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { isErrnoCode } from "./errno.js";

/** Where the token came from: given in the environment, read back, or generated now. */
export type TokenSource = "env" | "file" | "generated";

/**
 * The bearer token: `WORKCELL_TOKEN` if set, else `<dataDir>/token`, created on first start
 * with 256 random bits and mode 0600.
 */
export async function loadOrCreateToken(
  dataDir: string,
  fromEnv: string | undefined,
): Promise<{ token: string; source: TokenSource; file: string }> {
  const file = path.join(dataDir, "token");
  if (fromEnv !== undefined) return { token: fromEnv, source: "env", file };
  try {
    const stored = (await readFile(file, "utf8")).trim();
    if (stored.length >= 16) {
      await chmod(file, 0o600);
      return { token: stored, source: "file", file };
    }
  } catch (error) {
    if (!isErrnoCode(error, "ENOENT")) throw error;
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString("base64url");
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return { token, source: "generated", file };
}
