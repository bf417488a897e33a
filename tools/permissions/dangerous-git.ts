import path from "node:path";
import { commandWords } from "./command-programs.js";

/**
 * Why a git invocation (its arguments after `git`) discards work or rewrites history, or
 * undefined: hard reset, clean -f, deleting branches, discarding changes with
 * checkout/restore, rebase, stash drop/clear, push, deleting refs, expiring the reflog. Pure.
 */
export function dangerousGitArgs(args: readonly string[]): string | undefined {
  // Skip global options such as -C dir or -c key=value.
  let index = 0;
  while (index < args.length && (args[index] as string).startsWith("-"))
    index += ["-C", "-c", "--git-dir", "--work-tree"].includes(args[index] as string) ? 2 : 1;
  const sub = args[index];
  const rest = args.slice(index + 1);
  const has = (...flags: string[]) =>
    rest.some(
      (arg) =>
        flags.includes(arg) ||
        flags.some((flag) => flag.length === 2 && /^-[a-zA-Z]+$/.test(arg) && arg.includes(flag[1] as string)),
    );
  switch (sub) {
    case "reset":
      return has("--hard", "--merge", "--keep") ? "git reset --hard discards uncommitted changes" : undefined;
    case "clean":
      return has("-f", "--force") ? "git clean -f deletes untracked files" : undefined;
    case "branch":
      return has("-d", "-D", "--delete")
        ? "git branch -d/-D deletes a branch"
        : has("-f", "--force", "-M", "-C")
          ? "git branch --force moves or overwrites a branch"
          : undefined;
    case "checkout":
      return rest.includes("--") || rest.includes(".") || has("-f", "--force")
        ? "git checkout of paths discards their changes"
        : undefined;
    case "restore":
      return rest.some((arg) => arg === "--staged" || arg === "-S") &&
        !rest.some((arg) => arg === "--worktree" || arg === "-W")
        ? undefined
        : "git restore discards working-tree changes";
    case "switch":
      return has("-f", "--force", "--discard-changes") ? "git switch --discard-changes discards changes" : undefined;
    case "rebase":
      return "git rebase rewrites history";
    case "stash":
      return rest[0] === "drop" || rest[0] === "clear" ? `git stash ${rest[0]} deletes stashed work` : undefined;
    case "push":
      return "git push sends commits elsewhere";
    case "update-ref":
      return has("-d") ? "git update-ref -d deletes a ref" : undefined;
    case "reflog":
      return rest[0] === "expire" || rest[0] === "delete"
        ? "git reflog expire/delete drops recovery points"
        : undefined;
    case "filter-branch":
    case "filter-repo":
      return "rewriting history";
    default:
      return undefined;
  }
}

/** The first dangerous git operation a command line would run, if any. Pure. */
export function dangerousGitInCommand(command: string | readonly string[]): string | undefined {
  const commands = typeof command === "string" ? commandWords(command) : [command as string[]];
  for (const words of commands) {
    if (path.posix.basename(words[0] ?? "") !== "git") continue;
    const reason = dangerousGitArgs(words.slice(1));
    if (reason !== undefined) return reason;
  }
  return undefined;
}
