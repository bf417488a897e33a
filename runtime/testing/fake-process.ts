import { PassThrough, Writable, type Readable } from "node:stream";

/** How a program killed with its container (or at its deadline) exits: 128 + SIGKILL, as the engine reports it. */
export const KILLED_EXIT_CODE = 137;

/** How long a closed session waits for its program to finish before it gives the exit code up as unknown (-1). */
const CLOSE_GRACE_MS = 50;

/** What a fake program sees when it runs in an in-memory container. */
export interface FakeProcess {
  readonly containerId: string;
  readonly argv: readonly string[];
  /** The container's variables, then the exec's own ("NAME=value"); a later one wins, as in a shell. */
  readonly env: readonly string[];
  /** "uid:gid" the program runs as. */
  readonly user: string;
  readonly workingDir: string;
  /** Whether the program has a terminal: what it writes to stderr then arrives on stdout. */
  readonly terminal: boolean;
  readonly stdin: Readable;
  /** Writes after the program has finished or been killed are dropped; the runtime ends both streams. */
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Aborts when the program is killed: its container stopped, died or was removed, or its deadline passed. */
  readonly signal: AbortSignal;
}

/**
 * A program the in-memory driver runs for an exec, an attach or a container's main command.
 * It answers its exit code (nothing: 0). A throw stands for an engine failure: an exec
 * rejects with it, a session's `exited` settles with -1.
 */
export type FakeProgram = (process: FakeProcess) => number | void | Promise<number | void>;

/** Which argv a program answers: one that starts with these words, or one the predicate accepts. */
export type ProgramMatch = readonly string[] | ((argv: readonly string[]) => boolean);

/** Whether `match` accepts `argv`. Pure. */
export function matchesArgv(match: ProgramMatch, argv: readonly string[]): boolean {
  return typeof match === "function"
    ? match(argv)
    : match.length <= argv.length && match.every((word, index) => argv[index] === word);
}

/** A program that prints `stdout` and `stderr` and exits with `exitCode` (0 when absent). */
export function reply(
  output: { exitCode?: number; stdout?: string | Buffer; stderr?: string | Buffer } = {},
): FakeProgram {
  return ({ stdout, stderr }) => {
    if (output.stdout !== undefined) stdout.write(output.stdout);
    if (output.stderr !== undefined) stderr.write(output.stderr);
    return output.exitCode ?? 0;
  };
}

/** A program that runs until it is killed (what a container's `sleep infinity` does). */
export const runUntilKilled: FakeProgram = ({ signal }) =>
  new Promise<number>((resolve) => {
    if (signal.aborted) resolve(KILLED_EXIT_CODE);
    else signal.addEventListener("abort", () => resolve(KILLED_EXIT_CODE), { once: true });
  });

/** Everything a stream carries until it ends (a fake program's stdin, a session's stdout). */
export function readAll(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer | string) => chunks.push(Buffer.from(chunk)));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

/** Identity and environment of a program about to start. */
export type ProcessContext = Omit<FakeProcess, "stdin" | "stdout" | "stderr" | "signal">;

/**
 * A fake program running in an in-memory container, with its streams as the host sees them.
 * It finishes once: when the program returns, when it is killed, or when a closed session
 * stops waiting for it; the output streams end then and `exited` settles.
 */
export class RunningProcess {
  /** What the host writes to the program; ending it is the program's EOF. */
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly exited: Promise<number>;
  /** Settles when the program itself returns or is killed (a closed session may stop waiting earlier). */
  readonly settled: Promise<void>;
  /** What the program threw, if it did. */
  failure: unknown;
  private finished = false;
  private resolveExit: (code: number) => void = () => undefined;
  private readonly killer = new AbortController();

  constructor(program: FakeProgram, context: ProcessContext) {
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    // A write to a stdin the host already ended must not crash the test (the engine ignores it too).
    this.stdin.on("error", () => undefined);
    const stdout = this.writerTo(this.stdout);
    const stderr = context.terminal ? stdout : this.writerTo(this.stderr);
    const running = (async () =>
      program({ ...context, stdin: this.stdin, stdout, stderr, signal: this.killer.signal }))();
    this.settled = running.then(
      (code) => this.finish(code ?? 0),
      (error: unknown) => {
        this.failure = error;
        this.finish(-1);
      },
    );
  }

  /** Whether the host is still waiting for the program. */
  get running(): boolean {
    return !this.finished;
  }

  /** Ends the program as its container's death (or its deadline) does: it exits with `exitCode` now. */
  kill(exitCode: number = KILLED_EXIT_CODE): void {
    this.killer.abort(new Error("killed"));
    this.finish(exitCode);
  }

  /** Ends stdin and stops waiting: the exit code is the program's if it finishes soon after, otherwise -1. */
  close(): void {
    this.stdin.end();
    if (this.finished) return;
    setTimeout(() => this.finish(-1), CLOSE_GRACE_MS).unref();
  }

  private writerTo(target: PassThrough): Writable {
    return new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        if (!this.finished) target.write(chunk);
        callback();
      },
    });
  }

  private finish(exitCode: number): void {
    if (this.finished) return;
    this.finished = true;
    this.stdout.end();
    this.stderr.end();
    this.resolveExit(exitCode);
  }
}
