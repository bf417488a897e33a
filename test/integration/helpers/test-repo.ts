import { execFileSync } from "node:child_process";
import { cp, mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Runs plain git in a test repository (the user's side: any git is fine there). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Test",
      GIT_AUTHOR_EMAIL: "test@example.invalid",
      GIT_COMMITTER_NAME: "Test",
      GIT_COMMITTER_EMAIL: "test@example.invalid",
    },
  }).trim();
}

/** A temporary git repository with a small project committed on `main`. */
export async function createTestRepo(parent: string): Promise<string> {
  const repo = await realpath(await mkdtemp(path.join(parent, "repo-")));
  git(repo, "init", "--quiet", "--initial-branch=main");
  await mkdir(path.join(repo, "src"), { recursive: true });
  await writeFile(path.join(repo, "README.md"), "# demo\n");
  await writeFile(
    path.join(repo, "src", "math.ts"),
    "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
  );
  await writeFile(path.join(repo, "src", "greet.ts"), "export const greeting = 'hello';\n");
  await writeFile(path.join(repo, ".gitignore"), "ignored/\n");
  git(repo, "add", ".");
  git(repo, "commit", "--quiet", "-m", "initial");
  return repo;
}

/** A fresh private temporary directory. */
export async function createTempDir(prefix: string): Promise<string> {
  return realpath(await mkdtemp(path.join(tmpdir(), prefix)));
}

/** A git repository holding a copy of `test/fixtures/projects/<name>`, committed on main. */
export async function createRepoFromFixture(parent: string, name: string): Promise<string> {
  const repo = await realpath(await mkdtemp(path.join(parent, `${name}-`)));
  await cp(path.join(FIXTURE_PROJECTS, name), repo, { recursive: true });
  git(repo, "init", "--quiet", "--initial-branch=main");
  git(repo, "add", ".");
  git(repo, "commit", "--quiet", "-m", `fixture ${name}`);
  return repo;
}

const FIXTURE_PROJECTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/projects");
