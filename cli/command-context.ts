import type { WorkcellClient } from "../client/index.js";
import type { Connection } from "./connection.js";
import type { FlagOptions } from "./parse-flags.js";

/** What a command needs from the process. */
export interface CliContext {
  env: Readonly<Record<string, string | undefined>>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTty: boolean;
  /** Whether standard input is a terminal (an interactive shell) rather than a pipe or a file. */
  stdinIsTty?: boolean;
  /** All of standard input, for commands that take a script from it. */
  readStdin?: () => Promise<string>;
}

/** One run of a client command: what it was given, and the typed client every request goes through. */
export interface CommandRun {
  readonly command: string;
  readonly ctx: CliContext;
  readonly flags: Record<string, string | boolean | undefined>;
  /** The first argument (a worker's or an approval's id, a repository's path), if any. */
  readonly first: string | undefined;
  /** The arguments after `--`. */
  readonly rest: string[];
  readonly connection: Connection;
  readonly client: WorkcellClient;
  /** Whether --json asked for machine-readable output. */
  readonly json: boolean;
  /** `pending`, with a failure turned into the CLI's one-line error and exit code. */
  call<T>(pending: Promise<T>): Promise<T>;
  /** Prints `value` as JSON under --json, else the human text. */
  print(value: unknown, human: () => string): void;
}

/** A client command: the flags it takes besides the common ones, and what it does (answering the exit code). */
export interface ClientCommand {
  readonly options: FlagOptions;
  run(run: CommandRun): Promise<number>;
}
