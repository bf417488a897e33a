import type { Writable } from "node:stream";
import { AppError } from "../errors/app-error.js";
import type { AttachOptions, ExecOptions, ExecResult, ExecSession } from "./container-driver.js";
import { DEFAULT_EXEC_DEADLINE_MS, HOST_DEADLINE_GRACE_MS, killAfterArgv, raceAbort } from "./exec-deadline.js";

const DEFAULT_MAX_EXEC_BUFFER_BYTES = 64 * 1024 * 1024;
/** How `timeout -s KILL` exits when it killed the program (128 + SIGKILL). */
const KILLED_EXIT_CODE = 137;

/** Opens an exec with its streams attached (stdin only when asked for). */
export type OpenExec = (
  id: string,
  argv: readonly string[],
  options: AttachOptions,
  withStdin: boolean,
) => Promise<ExecSession>;

/**
 * Runs a program to completion under a deadline (options.timeoutMs, DEFAULT_EXEC_DEADLINE_MS
 * by default): the container kills the program when it passes, and the host stops waiting
 * soon after. An abort of options.signal also stops the wait.
 */
export async function runExecToEnd(openExec: OpenExec, id: string, options: ExecOptions): Promise<ExecResult> {
  const deadlineMs = options.timeoutMs ?? DEFAULT_EXEC_DEADLINE_MS;
  const deadline = AbortSignal.timeout(deadlineMs + HOST_DEADLINE_GRACE_MS);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);
  const what = `'${options.argv.slice(0, 3).join(" ")}' in container ${id.slice(0, 12)}`;
  const timedOut = (cause?: unknown) =>
    new AppError(
      "timeout",
      `${what} did not finish within ${deadlineMs} ms and was killed. Check what the worker's workspace makes it wait for (e.g. a FIFO or a huge repository), then retry.`,
      { cause },
    );
  const startedMs = Date.now();
  try {
    const result = await raceAbort(
      collectExec(openExec, id, killAfterArgv(options.argv, deadlineMs), options, signal),
      signal,
    );
    // The container's `timeout` got there first: it SIGKILLed the program.
    if (result.exitCode === KILLED_EXIT_CODE && Date.now() - startedMs >= deadlineMs) throw timedOut();
    return result;
  } catch (error) {
    if (error instanceof AppError && error.code === "timeout") throw error;
    if (options.signal?.aborted) {
      throw new AppError(
        "conflict",
        `${what} was interrupted: ${reasonOf(options.signal)}. The operation was abandoned; retry it once the worker is running again.`,
        { cause: error },
      );
    }
    if (deadline.aborted) throw timedOut(error);
    throw error;
  }
}

/** Feeds the exec its stdin and gathers its output and exit code; an abort of `signal` closes it. */
async function collectExec(
  openExec: OpenExec,
  id: string,
  argv: readonly string[],
  options: ExecOptions,
  signal: AbortSignal,
): Promise<ExecResult> {
  const session = await openExec(id, argv, options, options.stdin !== undefined);
  const maxBytes = options.maxBufferBytes ?? DEFAULT_MAX_EXEC_BUFFER_BYTES;
  const stdout =
    options.stdoutSink === undefined ? collect(session.stdout, maxBytes) : pipeInto(session.stdout, options.stdoutSink);
  const stderr = collect(session.stderr, maxBytes);
  const onAbort = () => session.close();
  if (signal.aborted) session.close();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    if (options.stdin !== undefined) session.stdin.end(options.stdin);
    const [exitCode, out, err] = await Promise.all([session.exited, stdout, stderr]);
    return { exitCode, stdout: out, stderr: err };
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** The stream's bytes up to `maxBytes` (the rest is read and dropped). */
export function collect(stream: NodeJS.ReadableStream, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      if (size >= maxBytes) return;
      chunks.push(chunk.subarray(0, maxBytes - size));
      size += chunk.length;
    });
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

/** Pipes the stream into `sink`; resolves (with no bytes kept) once the sink has finished. */
export function pipeInto(stream: NodeJS.ReadableStream, sink: Writable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    stream.pipe(sink);
    sink.on("finish", () => resolve(Buffer.alloc(0)));
    stream.on("error", reject);
    sink.on("error", reject);
  });
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : String(reason ?? "aborted");
}
