/** The programs the suite runs, by argv; a fake driver must be taught these (see the in-memory driver's test). */
export const SUITE_PROGRAMS = {
  /** The main command of the suite's containers: runs until the container stops. */
  keepRunning: ["sleep", "infinity"],
  /** Runs far longer than any case waits. */
  longSleep: ["sleep", "30"],
  /** Writes "out" to stdout and "err" to stderr, then exits 3. */
  output: ["sh", "-c", "printf out; printf err >&2; exit 3"],
  /** Reads one line, then behaves like `output` (for a session with a terminal). */
  prompted: ["sh", "-c", "read line; printf out; printf err >&2; exit 3"],
  /** A main command that exits at once with code 7. */
  exitSeven: ["sh", "-c", "exit 7"],
  /** Copies stdin to stdout until stdin ends. */
  cat: ["cat"],
  /** Prints the value of each named variable, one a line. */
  printenv: ["printenv", "CONFORMANCE_FROM_SPEC", "CONFORMANCE_FROM_EXEC"],
  pwd: ["pwd"],
  uid: ["id", "-u"],
} as const satisfies Record<string, readonly string[]>;
