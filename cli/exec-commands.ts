/** The commands that run something in a worker: one command (exec), or a shell (interactive, or a piped script). */
import { escapeControls as safe, stringifyForTerminal } from "../contract/terminal-text.js";
import type { ClientCommand, CommandRun } from "./command-context.js";
import { CliError } from "./connection.js";
import { HELP } from "./help.js";
import { requireValue } from "./parse-flags.js";
import { interactiveShell } from "./shell-client.js";

async function execCommand({ command, ctx, flags, first, rest, client, call, json }: CommandRun): Promise<number> {
  const id = requireValue(first, "the worker id", command);
  if (rest.length === 0) throw new CliError(`Missing the command after --.\n\n${HELP.exec}`, 2);
  const result = await call(
    client.exec(id, {
      command: rest.length === 1 ? (rest[0] as string) : rest,
      ...(flags.timeout ? { timeoutMs: Number(flags.timeout) } : {}),
    }),
  );
  if (json) ctx.stdout(`${stringifyForTerminal(result)}\n`);
  else {
    // On a terminal the command's output is shown with its escapes made visible; piped, it stays byte for byte.
    ctx.stdout(ctx.isTty ? safe(result.stdout) : result.stdout);
    ctx.stderr(ctx.isTty ? safe(result.stderr) : result.stderr);
    if (result.timedOut) ctx.stderr("workcell: the command timed out and was killed\n");
  }
  return result.exitCode ?? 124;
}

async function openShell({ command, ctx, first, connection, client, call }: CommandRun): Promise<number> {
  const id = requireValue(first, "the worker id", command);
  if (ctx.stdinIsTty !== true && ctx.readStdin !== undefined) {
    // A piped script runs as one REST exec: under the worker's policy, and in its audit trail.
    const script = await ctx.readStdin();
    if (script.trim() === "")
      throw new CliError(
        `No script on standard input. Pipe one in (workcell shell ${id} < script.sh), or run it from a terminal for an interactive shell.`,
        2,
      );
    const result = await call(client.exec(id, { command: script }));
    ctx.stdout(result.stdout);
    ctx.stderr(result.stderr);
    if (result.timedOut) ctx.stderr("workcell: the script timed out and was killed\n");
    return result.exitCode ?? 124;
  }
  // From a terminal: an interactive shell through the control plane, checked and recorded line by line.
  return interactiveShell(connection, id, { stdin: process.stdin, stdout: process.stdout, term: ctx.env.TERM });
}

/** exec and shell. */
export const EXEC_COMMANDS: Record<string, ClientCommand> = {
  exec: { options: { timeout: { type: "string" } }, run: execCommand },
  shell: { options: {}, run: openShell },
};
