/**
 * The commands on a worker's work: what changed since its base (diff), and bringing its
 * branch into the source repository (export). Everything shown that came from the server
 * passes through `safe` before any colour is added.
 */
import { escapeControls as safe } from "../contract/terminal-text.js";
import type { ClientCommand, CommandRun } from "./command-context.js";
import { requireValue } from "./parse-flags.js";
import { color } from "./terminal-style.js";

async function showDiff({ command, ctx, first, client, call, print }: CommandRun): Promise<number> {
  const diff = await call(client.diff(requireValue(first, "the worker id", command)));
  print(diff, () =>
    diff.files.length === 0
      ? `no changes since the base (${safe(diff.baseCommit.slice(0, 12))}): nothing committed, staged, edited or added`
      : safe(diff.patch)
          .split("\n")
          .map((line) =>
            line.startsWith("+") && !line.startsWith("+++")
              ? color(ctx, 32, line)
              : line.startsWith("-") && !line.startsWith("---")
                ? color(ctx, 31, line)
                : line,
          )
          .join("\n"),
  );
  return 0;
}

async function exportBranch({ command, ctx, flags, first, client, call, print }: CommandRun): Promise<number> {
  const result = await call(
    client.export(
      requireValue(first, "the worker id", command),
      flags.branch ? { branch: flags.branch as string } : {},
    ),
  );
  print(result, () => safe(`exported ${result.commit.slice(0, 12)} to ${result.branch} in ${result.repo}`));
  const left = result.uncommittedFiles ?? 0;
  if (left > 0) {
    const files =
      left === 1
        ? "1 file with uncommitted changes in the worker was"
        : `${left} files with uncommitted changes in the worker were`;
    ctx.stderr(
      `${color(ctx, 33, `warning: ${files} NOT exported.`)} Commit them in the worker (git_commit) and export again.\n`,
    );
  }
  return 0;
}

/** diff and export. */
export const BRANCH_COMMANDS: Record<string, ClientCommand> = {
  diff: { options: {}, run: showDiff },
  export: { options: { branch: { type: "string" } }, run: exportBranch },
};
