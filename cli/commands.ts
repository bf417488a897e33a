import { stringifyForTerminal } from "../contract/terminal-text.js";
import { APPROVAL_COMMANDS } from "./approval-commands.js";
import { BRANCH_COMMANDS } from "./branch-commands.js";
import type { CliContext, ClientCommand, CommandRun } from "./command-context.js";
import { CliError, createClient, resolveConnection, toCliError } from "./connection.js";
import { EXEC_COMMANDS } from "./exec-commands.js";
import { HELP } from "./help.js";
import { LOGS_COMMANDS } from "./logs-command.js";
import { parseFlags } from "./parse-flags.js";
import { WORKER_COMMANDS } from "./worker-commands.js";

/** Every client command by name (usage texts are in help.ts). */
const COMMANDS: ReadonlyMap<string, ClientCommand> = new Map(
  Object.entries({ ...WORKER_COMMANDS, ...EXEC_COMMANDS, ...BRANCH_COMMANDS, ...LOGS_COMMANDS, ...APPROVAL_COMMANDS }),
);

/** Runs one client command; answers the exit code. */
export async function runClientCommand(command: string, argv: string[], ctx: CliContext): Promise<number> {
  const spec = COMMANDS.get(command);
  if (spec === undefined) throw new CliError(`Unknown command "${command}". Run 'workcell --help'.`, 2);
  const dashdash = argv.indexOf("--");
  const own = dashdash === -1 ? argv : argv.slice(0, dashdash);
  const rest = dashdash === -1 ? [] : argv.slice(dashdash + 1);
  const { values, positionals } = parseFlags(own, spec.options, command);
  const flags = values as Record<string, string | boolean | undefined>;
  if (flags.help) {
    ctx.stdout(`${HELP[command]}\n`);
    return 0;
  }
  const connection = await resolveConnection(
    { url: flags.url as string | undefined, token: flags.token as string | undefined },
    ctx.env,
  );
  const json = flags.json === true;
  const run: CommandRun = {
    command,
    ctx,
    flags,
    first: positionals[0],
    rest,
    connection,
    // Every request goes through the typed client; its failures become the CLI's one-line errors and exit codes.
    client: createClient(connection),
    json,
    call: (pending) =>
      pending.catch((error: unknown) => {
        throw toCliError(connection, error);
      }),
    print: (value, human) => ctx.stdout(`${json ? stringifyForTerminal(value) : human()}\n`),
  };
  return spec.run(run);
}
