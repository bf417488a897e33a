import path from "node:path";
import { parseArgs } from "node:util";
import type { Decision, SpawnInput, WorkcellEvent } from "../client/index.js";
import { escapeControls, stringifyForTerminal } from "../contract/terminal-text.js";
import { CliError, createClient, resolveConnection, toCliError, type Connection } from "./connection.js";
import { normalizeBareFlags, PERMISSION_OPTIONS, permissionsFromFlags } from "./permission-flags.js";
import { describeEvent, suggestFlag, summarizeArgs } from "./describe.js";
import { interactiveShell } from "./shell-client.js";

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

const COMMON = {
  url: { type: "string" as const },
  token: { type: "string" as const },
  json: { type: "boolean" as const },
  help: { type: "boolean" as const, short: "h" },
};

const HELP: Record<string, string> = {
  spawn: `workcell spawn <repo> [--base <ref>] [--name <prefix>] [--allow-net[=hosts]] [--allow-read=paths] [--allow-write=paths]
               [--allow-run[=programs]] [--allow-env=names] [--deny-{read,write,net,run,env}=list] [--prompt] [--audit]
               [--memory <MB>] [--cpus <n>] [--json]
  Create a worker on a git repository. Permission flags mirror Deno's and become the worker's policy.
  Example: workcell spawn "$PWD" --name fix-login --allow-net=registry.npmjs.org:443 --allow-run=git,npm,node`,
  ls: `workcell ls [--json]\n  List workers.\n  Example: workcell ls --json | jq -r '.workers[].id'`,
  exec: `workcell exec <id> [--timeout <ms>] -- <command…>\n  Run a command in the worker; exits with the command's exit code.\n  Example: workcell exec 3f9c1a2b -- npm test`,
  shell: `workcell shell <id> [< script]\n  From a terminal: an interactive bash in the worker's container, as the sandbox user. Each line is checked against the\n  worker's run grants as exec checks a command (a refused line runs none of its commands) and recorded in its events.\n  Piped: the script runs as one exec, under the same policy and recorded the same way.\n  Example: workcell shell 3f9c1a2b          (then type; 'exit' leaves)\n           workcell shell 3f9c1a2b < setup.sh`,
  diff: `workcell diff <id> [--json]\n  What changed since the worker's base.\n  Example: workcell diff 3f9c1a2b | less -R`,
  export: `workcell export <id> [--branch <name>] [--json]\n  Bring the worker's branch into the source repository.\n  Example: workcell export 3f9c1a2b --branch feature/login`,
  rm: `workcell rm <id> [--keep-workspace] [--json]\n  Remove a worker (and its workspace unless --keep-workspace).\n  Example: workcell rm 3f9c1a2b --keep-workspace`,
  logs: `workcell logs <id> [-f] [--json]\n  The worker's events, one line each (commands, tool calls and what went wrong); -f follows them live.\n  Example: workcell logs 3f9c1a2b -f`,
  approvals: `workcell approvals [--json]\n  Pending approvals and the call each holds. Decide with: workcell approve <id> [--scope worker] | workcell reject <id> [--reason "…"]\n  Example: workcell approvals`,
  approve: `workcell approve <approval-id> [--scope once|worker] [--input '<json>']\n  Approve (or, with --input, edit and approve) a pending call.\n  Example: workcell approve ap_1a2b3c --scope worker`,
  reject: `workcell reject <approval-id> [--reason "…"]\n  Reject a pending call; the agent sees the reason.\n  Example: workcell reject ap_1a2b3c --reason "no network for this task"`,
  "mcp-config": `workcell mcp-config <id>\n  The JSON an MCP client needs to connect to the worker.\n  Example: workcell mcp-config 3f9c1a2b > .mcp.json`,
};

/** The usage text of the client commands. */
export function clientUsage(): string {
  return Object.values(HELP).join("\n\n");
}

const SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

/** On a TTY, a spinner with the elapsed time once `task` takes more than a moment; the line is cleared after. */
export async function withSpinner<T>(
  ctx: CliContext,
  enabled: boolean,
  label: string,
  task: () => Promise<T>,
): Promise<T> {
  if (!enabled || !ctx.isTty) return task();
  const started = Date.now();
  let frame = 0;
  let shown = false;
  const timer = setInterval(() => {
    if (Date.now() - started < 300) return;
    shown = true;
    ctx.stderr(`\r${SPINNER[frame++ % SPINNER.length]} ${label} ${((Date.now() - started) / 1000).toFixed(1)}s`);
  }, 100);
  try {
    return await task();
  } finally {
    clearInterval(timer);
    if (shown) ctx.stderr("\r\u001b[2K");
  }
}

const color = (ctx: CliContext, code: number, text: string) => (ctx.isTty ? `\u001b[${code}m${text}\u001b[0m` : text);
const statusColor = (ctx: CliContext, status: string) =>
  color(ctx, status === "running" ? 32 : status === "failed" ? 31 : 33, status);

function table(rows: string[][]): string {
  const widths =
    rows[0]?.map((_, column) =>
      Math.max(...rows.map((row) => (row[column] ?? "").replace(/\u001b\[\d+m/g, "").length)),
    ) ?? [];
  return rows
    .map((row) =>
      row
        .map(
          (cell, column) =>
            cell + " ".repeat(Math.max(0, (widths[column] ?? 0) - cell.replace(/\u001b\[\d+m/g, "").length)),
        )
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function parse<T extends Record<string, { type: "string" | "boolean"; short?: string }>>(
  argv: string[],
  options: T,
  command: string,
) {
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

const need = (value: string | undefined, what: string, command: string): string => {
  if (value === undefined || value === "") throw new CliError(`Missing ${what}.\n\n${HELP[command]}`, 2);
  return value;
};

/** A flag's value as a positive number, or a usage error (exit code 2) that names the flag. */
function positiveNumber(flag: string, value: string, example: string, command: string): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number <= 0) {
    throw new CliError(
      `--${flag} takes a positive number (e.g. --${flag} ${example}); got "${escapeControls(value)}".\n\n${HELP[command]}`,
      2,
    );
  }
  return number;
}

/** Runs one client command; answers the exit code. */
export async function runClientCommand(command: string, argv: string[], ctx: CliContext): Promise<number> {
  if (!(command in HELP)) throw new CliError(`Unknown command "${command}". Run 'workcell --help'.`, 2);
  const dashdash = argv.indexOf("--");
  const own = dashdash === -1 ? argv : argv.slice(0, dashdash);
  const rest = dashdash === -1 ? [] : argv.slice(dashdash + 1);
  const extra =
    command === "spawn"
      ? {
          ...PERMISSION_OPTIONS,
          base: { type: "string" as const },
          name: { type: "string" as const },
          memory: { type: "string" as const },
          cpus: { type: "string" as const },
        }
      : command === "exec"
        ? { timeout: { type: "string" as const } }
        : command === "export"
          ? { branch: { type: "string" as const } }
          : command === "rm"
            ? { "keep-workspace": { type: "boolean" as const } }
            : command === "logs"
              ? { follow: { type: "boolean" as const, short: "f" } }
              : command === "approve"
                ? { scope: { type: "string" as const }, input: { type: "string" as const } }
                : command === "reject"
                  ? { reason: { type: "string" as const } }
                  : {};
  const { values, positionals } = parse(own, extra, command);
  const flags = values as Record<string, string | boolean | undefined>;
  if (flags.help) {
    ctx.stdout(`${HELP[command]}\n`);
    return 0;
  }
  const connection = await resolveConnection(
    { url: flags.url as string | undefined, token: flags.token as string | undefined },
    ctx.env,
  );
  // Every request goes through the typed client; its failures become the CLI's one-line errors and exit codes.
  const client = createClient(connection);
  const call = <T>(pending: Promise<T>): Promise<T> =>
    pending.catch((error: unknown) => {
      throw toCliError(connection, error);
    });
  const json = flags.json === true;
  // Everything printed below that came from the server passes through `safe` before any colour is added.
  const print = (value: unknown, human: () => string) =>
    ctx.stdout(`${json ? stringifyForTerminal(value) : human()}\n`);
  const safe = escapeControls;
  const [first] = positionals;

  switch (command) {
    case "spawn": {
      // A relative path means the directory it names here, wherever the control plane runs.
      const body: Record<string, unknown> = { repo: path.resolve(need(first, "the repository path", command)) };
      if (flags.base) body.baseRef = flags.base;
      if (flags.name) body.name = flags.name;
      const permissions = permissionsFromFlags(flags);
      if (Object.keys(permissions).length > 0) body.permissions = permissions;
      const resources: Record<string, number> = {};
      if (typeof flags.memory === "string")
        resources.memoryMb = positiveNumber("memory", flags.memory, "2048", command);
      if (typeof flags.cpus === "string") resources.cpus = positiveNumber("cpus", flags.cpus, "1.5", command);
      if (Object.keys(resources).length > 0) body.resources = resources;
      const worker = await withSpinner(ctx, !json, `creating a worker on ${body.repo as string}`, () =>
        call(client.spawn(body as SpawnInput)),
      );
      print(
        worker,
        () =>
          `${color(ctx, 1, safe(worker.id))} ${statusColor(ctx, safe(worker.status))} on ${safe(worker.branch)}\nMCP: ${safe(worker.mcpUrl)}`,
      );
      return 0;
    }
    case "ls": {
      const workers = await call(client.list());
      print({ workers }, () =>
        workers.length === 0
          ? "no workers"
          : table([
              ["ID", "NAME", "STATUS", "BRANCH", "NETWORK", "REPO"],
              ...workers.map((w) => [
                safe(w.id),
                safe(w.name),
                statusColor(ctx, safe(w.status)),
                safe(w.branch),
                safe(w.network ?? "none"),
                safe(w.repo),
              ]),
            ]),
      );
      return 0;
    }
    case "exec": {
      const id = need(first, "the worker id", command);
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
    case "shell": {
      const id = need(first, "the worker id", command);
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
    case "diff": {
      const diff = await call(client.diff(need(first, "the worker id", command)));
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
    case "export": {
      const result = await call(
        client.export(need(first, "the worker id", command), flags.branch ? { branch: flags.branch as string } : {}),
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
    case "rm": {
      const result = await call(
        client.remove(need(first, "the worker id", command), { keepWorkspace: flags["keep-workspace"] === true }),
      );
      print(result, () =>
        safe(`removed ${result.id}${result.workspace ? ` (workspace kept at ${result.workspace})` : ""}`),
      );
      return 0;
    }
    case "logs": {
      const id = need(first, "the worker id", command);
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
    case "approvals": {
      const approvals = await call(client.approvals({ status: "pending" }));
      print({ approvals }, () =>
        approvals.length === 0
          ? "no pending approvals"
          : table([
              ["ID", "WORKER", "CALL", "WHY"],
              ...approvals.map((a) =>
                [a.id, a.workerId, `${a.tool} ${summarizeArgs(a.input, 60)}`.trimEnd(), a.description].map((cell) =>
                  safe(String(cell)).replace(/\n/g, "\\n"),
                ),
              ),
            ]),
      );
      return 0;
    }
    case "approve":
    case "reject": {
      const id = need(first, "the approval id", command);
      const body =
        command === "reject"
          ? { decision: "reject", ...(flags.reason ? { reason: flags.reason } : {}) }
          : flags.input
            ? {
                decision: "edit",
                input: JSON.parse(flags.input as string) as unknown,
                ...(flags.scope ? { scope: flags.scope } : {}),
              }
            : { decision: "approve", ...(flags.scope ? { scope: flags.scope } : {}) };
      const decided = await call(client.decide(id, body as Decision));
      print(decided, () => safe(`${decided.id}: ${decided.status}`));
      return 0;
    }
    case "mcp-config": {
      const worker = await call(client.get(need(first, "the worker id", command)));
      ctx.stdout(
        `${stringifyForTerminal({ mcpServers: { [`workcell-${worker.name}`]: { type: "http", url: worker.mcpUrl, headers: client.headers } } })}\n`,
      );
      return 0;
    }
  }
  return 2;
}

export type { Connection };
