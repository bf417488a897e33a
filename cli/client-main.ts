import { escapeControls } from "../contract/terminal-text.js";
import { runClientCommand } from "./commands.js";
import { CliError } from "./connection.js";

/** The top-level usage text of `workcell`. */
export const USAGE = `Usage: workcell <command> [options]

Control plane:
  serve         Start the control plane (builds the sandbox image first if it is missing)
  build-image   Build the sandbox image if it is missing, and print its tag

Workers (talk to a running control plane: --url/--token, else WORKCELL_URL/WORKCELL_TOKEN,
else the local data dir's token and http://WORKCELL_HOST:WORKCELL_PORT; --json for scripts):
  spawn ls exec shell diff export rm logs approvals approve reject mcp-config
  'workcell <command> --help' shows each command's options and an example.

Environment: WORKCELL_HOST (127.0.0.1), WORKCELL_PORT (7070), WORKCELL_DATA_DIR (./.workcell),
WORKCELL_TOKEN (generated into <dataDir>/token when unset), DOCKER_HOST.`;

/**
 * Runs `workcell <argv>` for everything but the control plane's own commands (bin/ sends
 * those to server/cli.ts): usage, and the client commands against a running plane through
 * the typed client. Loads nothing of the control plane, so it starts fast (bin/ runs it from
 * a prebuilt bundle). Answers the exit code.
 */
export async function runClientMain(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  return runClientCommand(command, rest, {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTty: process.stdout.isTTY === true,
    stdinIsTty: process.stdin.isTTY === true,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
  });
}

/** Prints a failure the way every workcell command does, and answers its exit code. */
export function reportFailure(error: unknown): number {
  const message =
    error instanceof CliError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  // A server error may quote worker-controlled text (a path, a command).
  process.stderr.write(`workcell: ${escapeControls(message)}\n`);
  return error instanceof CliError ? error.exitCode : 1;
}

/** Runs the client part of `workcell` as a program (the entry of the prebuilt bundle). */
export function runClientProgram(argv: readonly string[]): void {
  runClientMain(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.exitCode = reportFailure(error);
    },
  );
}
