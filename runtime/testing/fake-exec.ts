import type { ExecOptions, ExecResult } from "../docker/container-driver.js";
import { DEFAULT_EXEC_DEADLINE_MS, raceAbort } from "../docker/exec-deadline.js";
import { collect, pipeInto } from "../docker/docker-exec.js";
import { AppError } from "../errors/app-error.js";
import type { RunningProcess } from "./fake-process.js";

/**
 * Waits for a one-shot exec's program as DockerDriver does: output collected up to
 * maxBufferBytes (or stdout piped to its sink); the deadline (options.timeoutMs or the
 * default) kills the program and fails with `timeout`; an abort of options.signal stops the
 * wait and fails with `conflict`. `what` names the exec in those messages.
 */
export async function awaitExec(running: RunningProcess, options: ExecOptions, what: string): Promise<ExecResult> {
  const deadlineMs = options.timeoutMs ?? DEFAULT_EXEC_DEADLINE_MS;
  const maxBytes = options.maxBufferBytes ?? Number.POSITIVE_INFINITY;
  const stdout =
    options.stdoutSink === undefined ? collect(running.stdout, maxBytes) : pipeInto(running.stdout, options.stdoutSink);
  const stderr = collect(running.stderr, maxBytes);
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    running.kill();
  }, deadlineMs);
  deadline.unref();
  try {
    const finished = Promise.all([running.exited, stdout, stderr]);
    const [exitCode, out, err] =
      options.signal === undefined ? await finished : await raceAbort(finished, options.signal);
    if (timedOut) {
      throw new AppError(
        "timeout",
        `${what} did not finish within ${deadlineMs} ms and was killed. Check what the worker's workspace makes it wait for (e.g. a FIFO or a huge repository), then retry.`,
      );
    }
    if (running.failure !== undefined) throw running.failure;
    return { exitCode, stdout: out, stderr: err };
  } catch (error) {
    if (options.signal?.aborted === true && !(error instanceof AppError)) {
      running.close();
      const reason: unknown = options.signal.reason;
      throw new AppError(
        "conflict",
        `${what} was interrupted: ${reason instanceof Error ? reason.message : String(reason ?? "aborted")}. The operation was abandoned; retry it once the worker is running again.`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    clearTimeout(deadline);
  }
}
