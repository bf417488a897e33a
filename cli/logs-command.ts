/** `workcell logs`: a worker's events, one line each, and with -f the live ones after them. */
import type { WorkcellEvent } from "../client/index.js";
import { escapeControls as safe, stringifyForTerminal } from "../contract/terminal-text.js";
import type { ClientCommand, CommandRun } from "./command-context.js";
import { toCliError } from "./connection.js";
import { describeEvent } from "./describe.js";
import { requireValue } from "./parse-flags.js";
import { color } from "./terminal-style.js";

async function showLogs({ command, ctx, flags, first, connection, client, call, json }: CommandRun): Promise<number> {
  const id = requireValue(first, "the worker id", command);
  const { events } = await call(client.events(id, { limit: 1000 }));
  const line = (e: WorkcellEvent) =>
    json ? stringifyForTerminal(e, 0) : `${safe(describeEvent(e))}${e.isError ? color(ctx, 31, " [error]") : ""}`;
  for (const event of events) ctx.stdout(`${line(event)}\n`);
  if (!flags.follow) return 0;
  try {
    for await (const event of client.watch({ workerId: id, after: events.at(-1)?.seq ?? 0 }))
      ctx.stdout(`${line(event)}\n`);
  } catch (error) {
    throw toCliError(connection, error);
  }
  return 0;
}

/** logs. */
export const LOGS_COMMANDS: Record<string, ClientCommand> = {
  logs: { options: { follow: { type: "boolean", short: "f" } }, run: showLogs },
};
