import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Bench",
      GIT_AUTHOR_EMAIL: "bench@example.invalid",
      GIT_COMMITTER_NAME: "Bench",
      GIT_COMMITTER_EMAIL: "bench@example.invalid",
      GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
      GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
    },
  });

/**
 * A fixed repository of `files` small source files in 40 directories, committed with fixed
 * dates so every run measures the same tree. Includes a 1 KB file for read benchmarks.
 */
export async function createBenchRepo(files = 2_000): Promise<string> {
  const repo = await realpath(await mkdtemp(path.join(tmpdir(), "workcell-bench-repo-")));
  for (let i = 0; i < files; i += 1) {
    const dir = path.join(repo, "src", `module-${String(i % 40).padStart(2, "0")}`);
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, `file-${i}.ts`),
      `// generated file ${i}\nexport const value${i} = ${i};\nexport function f${i}(x: number): number {\n  return x + ${i};\n}\n`,
    );
  }
  await writeFile(path.join(repo, "one-kb.txt"), `${"0123456789abcdef".repeat(63)}xxxxxxxxxxxxxxx\n`);
  git(repo, "init", "-q", "--initial-branch=main");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "bench fixture");
  return repo;
}
