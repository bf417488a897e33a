import { parseArgs } from "node:util";
import { escapeControls } from "../contract/terminal-text.js";
import { CliError } from "./connection.js";
import { suggestFlag } from "./describe.js";
import { HELP } from "./help.js";
import { normalizeBareFlags } from "./permission-flags.js";

/** The flags a command takes, as node:util's parseArgs reads them. */
export type FlagOptions = Record<string, { type: "string" | "boolean"; short?: string }>;

/** The flags every client command takes. */
const COMMON = {
  url: { type: "string" as const },
  token: { type: "string" as const },
  json: { type: "boolean" as const },
  help: { type: "boolean" as const, short: "h" },
};

/** `argv` read with the common flags and `options`; a flag it does not know is a usage error (exit code 2) with a suggestion. */
export function parseFlags(argv: string[], options: FlagOptions, command: string) {
  try {
    return parseArgs({
      args: normalizeBareFlags(argv),
      options: { ...COMMON, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const unknown = /Unknown option '([^']+)'/.exec((error as Error).message)?.[1];
    if (unknown !== undefined) {
      const suggestion = suggestFlag(unknown, Object.keys({ ...COMMON, ...options }));
      throw new CliError(
        `Unknown flag ${escapeControls(unknown)} for 'workcell ${command}'.${suggestion === undefined ? "" : ` Did you mean ${suggestion}?`}\n\n${HELP[command] ?? ""}`,
        2,
      );
    }
    throw new CliError(`${(error as Error).message}\n\n${HELP[command] ?? ""}`, 2);
  }
}

/** `value`, or a usage error (exit code 2) saying that `what` is missing. */
export function requireValue(value: string | undefined, what: string, command: string): string {
  if (value === undefined || value === "") throw new CliError(`Missing ${what}.\n\n${HELP[command]}`, 2);
  return value;
}

/** A flag's value as a positive number, or a usage error (exit code 2) that names the flag. */
export function positiveNumber(flag: string, value: string, example: string, command: string): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number <= 0) {
    throw new CliError(
      `--${flag} takes a positive number (e.g. --${flag} ${example}); got "${escapeControls(value)}".\n\n${HELP[command]}`,
      2,
    );
  }
  return number;
}
