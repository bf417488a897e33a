/** How long a host-side exec into a container may take unless the caller says otherwise. */
export const DEFAULT_EXEC_DEADLINE_MS = 5 * 60_000;

/** Extra time the host waits after the in-container kill before it stops waiting itself. */
export const HOST_DEADLINE_GRACE_MS = 2_000;

/**
 * The argv that runs `argv` under coreutils `timeout`, which SIGKILLs it (and its process
 * group) once `deadlineMs` has passed: closing a hijacked exec stream does not end the
 * process, so the container enforces the deadline itself.
 */
export function killAfterArgv(argv: readonly string[], deadlineMs: number): string[] {
  if (!Number.isFinite(deadlineMs) || deadlineMs <= 0)
    throw new RangeError(`deadlineMs must be a positive number of milliseconds; got ${deadlineMs}.`);
  if (argv.length === 0) throw new RangeError("argv must hold at least the program to run; got an empty list.");
  // `timeout` runs as the exec's user and stays the program's parent with the same stdio:
  // for workcell's own programs that is the container's root, out of the sandbox's reach.
  return ["timeout", "-s", "KILL", `${Math.ceil(deadlineMs / 1000)}s`, ...argv];
}

/** Settles like `promise`, or rejects with the signal's reason as soon as it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
