import { randomBytes } from "node:crypto";
import { PassThrough, type Readable } from "node:stream";
import { z } from "zod";
import { asSandboxUser, TOOLS_EXEC, TOOLS_PATH } from "./in-container.js";
import { ShellMarkerFilter } from "./shell-markers.js";
import type { OperationContext } from "./worker-operations.js";
import type { Worker } from "./worker.js";
import { CALL_MARKER_VAR, CONTAINER_WORKSPACE } from "../../contract/container.js";
import { KillMarkedResultSchema } from "../../contract/control.js";

/** The terminal a client opens a shell with. */
export const ShellTerminalSchema = z.object({
  columns: z.number().int().min(1).max(1000),
  rows: z.number().int().min(1).max(1000),
  term: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}$/, "must be a terminal type such as xterm-256color")
    .default("xterm-256color"),
});
export type ShellTerminal = z.infer<typeof ShellTerminalSchema>;

/** An open interactive shell: what is typed goes in, the terminal's output comes out. */
export interface InteractiveShell {
  /** The terminal's output, with the shell's reports taken out. */
  readonly output: Readable;
  write(data: Buffer): void;
  resize(columns: number, rows: number): Promise<void>;
  /** Settles with bash's exit status once the shell has ended and been recorded. */
  readonly exited: Promise<number>;
  /** Ends the shell (the client went away). */
  close(): void;
}

/**
 * bash, as the sandbox user, in the workspace, with the startup file the tools write: it
 * checks each line against the worker's policy the way exec does, and reports it.
 */
function shellArgv(user: { uid: number; gid: number }): string[] {
  return asSandboxUser(user, [
    "bash",
    "-c",
    `cd ${CONTAINER_WORKSPACE} 2>/dev/null; exec bash --rcfile <(node ${TOOLS_PATH} shell-rc) -i`,
  ]);
}

/**
 * Opens an interactive shell in a running worker. Every line is checked against the
 * worker's policy as exec checks a command, and recorded: `shell_opened`, one
 * `shell_command` per line (with `permission_denied` for a refused one, and audit mode's
 * entries), and `shell_closed` with the exit status.
 */
export async function openInteractiveShell(
  context: OperationContext,
  worker: Worker,
  containerId: string,
  user: { uid: number; gid: number },
  terminal: ShellTerminal,
  onInput: () => void,
): Promise<InteractiveShell> {
  // Everything the shell starts carries the marker, so what it leaves running ends with it.
  const marker = randomBytes(12).toString("hex");
  const session = await context.driver.attach(containerId, shellArgv(user), {
    user: TOOLS_EXEC.user,
    workingDir: TOOLS_EXEC.workingDir,
    env: [`TERM=${terminal.term}`, `${CALL_MARKER_VAR}=${marker}`],
    terminal: { columns: terminal.columns, rows: terminal.rows },
  });
  const started = Date.now();
  await context.event(worker.id, "shell_opened", {
    columns: terminal.columns,
    rows: terminal.rows,
    term: terminal.term,
  });
  const filter = new ShellMarkerFilter();
  const output = new PassThrough();
  let lines = 0;
  let recording = Promise.resolve();
  const record = (task: () => Promise<unknown>) => {
    recording = recording.then(task).then(
      () => undefined,
      () => undefined,
    );
  };
  session.stdout.on("data", (chunk: Buffer) => {
    const { output: shown, reports } = filter.push(chunk);
    if (shown.length > 0) output.write(shown);
    for (const report of reports) {
      lines += 1;
      record(async () => {
        await context.event(worker.id, "shell_command", {
          command: report.command,
          allowed: report.allowed,
          ...(report.message === undefined ? {} : { message: report.message }),
          isError: !report.allowed,
        });
        if (!report.allowed)
          await context.event(worker.id, "permission_denied", {
            via: "shell",
            command: report.command,
            message: report.message,
          });
        if (report.audit.length > 0) await context.recordAudit(worker.id, report.audit, "sandbox");
      });
    }
  });
  const exited = session.exited.then(async (exitCode) => {
    const rest = filter.flush();
    if (rest.length > 0) output.write(rest);
    output.end();
    // The engine does not end an exec whose client left: end the shell and what it started.
    const leftover = await context.channels
      .call(containerId, "kill-marked", [marker], KillMarkedResultSchema, { timeoutMs: 30_000 })
      .then(
        (answer) => answer.killed,
        () => null,
      );
    record(() =>
      context.event(worker.id, "shell_closed", { exitCode, lines, durationMs: Date.now() - started, killed: leftover }),
    );
    await recording;
    return exitCode;
  });
  return {
    output,
    write: (data) => {
      onInput();
      session.stdin.write(data);
    },
    resize: async (columns, rows) => {
      await session.resize?.(columns, rows);
    },
    exited,
    close: () => session.close(),
  };
}
