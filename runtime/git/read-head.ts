import { lstat, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";

/** What resolving HEAD without git gives: the repository's common directory and HEAD's commit. */
export interface HeadOnDisk {
  readonly commonDir: string;
  readonly commit: string;
}

const OBJECT_ID = /^[0-9a-f]{40}$/;

/**
 * Resolves `repo`'s HEAD to a commit by reading the files git keeps it in, as git itself
 * would, without starting git (a process costs the control plane several milliseconds, more
 * as its memory grows, and every worker creation asks this). Only the plain layout is read:
 * `repo/.git` a directory or a `gitdir:` file, owned like `repo` by this process's user,
 * SHA-1 objects and files for refs (no `[extensions]` in its config), HEAD a commit id or a
 * branch found loose or in `packed-refs`. Anything else — a bare repository, a subdirectory
 * of one, another owner (git's safe.directory rule), an unborn branch, a symbolic ref —
 * answers undefined, and the caller asks git, which gives its own answer or its own error.
 * A branch holds a commit (git refuses any other object there), so none is looked up.
 */
export async function readHeadOnDisk(repo: string): Promise<HeadOnDisk | undefined> {
  try {
    const uid = process.getuid?.();
    if (uid === undefined || (await stat(repo)).uid !== uid) return undefined;
    const gitDir = await findGitDir(repo);
    if (gitDir === undefined || (await stat(gitDir)).uid !== uid) return undefined;
    const commonDir = await realpath(
      path.resolve(gitDir, (await readOptional(path.join(gitDir, "commondir")))?.trim() || "."),
    );
    const config = await readOptional(path.join(commonDir, "config"));
    if (config === undefined || /^\s*\[\s*extensions\b/im.test(config)) return undefined;
    const head = (await readFile(path.join(gitDir, "HEAD"), "utf8")).trim();
    if (OBJECT_ID.test(head)) return { commonDir, commit: head };
    const branch = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
    if (branch === undefined || !isPlainRefName(branch)) return undefined;
    const commit = await readBranch(commonDir, branch);
    return commit === undefined ? undefined : { commonDir, commit };
  } catch {
    return undefined;
  }
}

/** `repo/.git` as a directory, or where its `gitdir:` line points; undefined for anything else. */
async function findGitDir(repo: string): Promise<string | undefined> {
  const dotGit = path.join(repo, ".git");
  const entry = await lstat(dotGit).catch(() => undefined);
  if (entry?.isDirectory()) return dotGit;
  if (!entry?.isFile()) return undefined;
  const target = /^gitdir: (.+)$/m.exec(await readFile(dotGit, "utf8"))?.[1]?.trim();
  return target === undefined ? undefined : path.resolve(repo, target);
}

/** A loose ref's commit, else its line in packed-refs (git writes the pack before it drops the loose file). */
async function readBranch(commonDir: string, ref: string): Promise<string | undefined> {
  const loose = await readOptional(path.join(commonDir, ref));
  if (loose !== undefined) {
    const id = loose.trim();
    return OBJECT_ID.test(id) ? id : undefined;
  }
  const packed = await readOptional(path.join(commonDir, "packed-refs"));
  for (const line of packed?.split("\n") ?? []) {
    const [id, name] = line.split(" ");
    if (name === ref && id !== undefined && OBJECT_ID.test(id)) return id;
  }
  return undefined;
}

/** A ref name that stays inside the directory it is joined to. */
function isPlainRefName(ref: string): boolean {
  return ref.split("/").every((part) => part !== "" && part !== "." && part !== ".." && !part.startsWith("."));
}

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
