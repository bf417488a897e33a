/** One failing test, as the agent needs it to act; file and line where the runner's report shows them. */
export interface TestFailure {
  testName: string;
  message: string;
  stackTrace: string;
  file?: string;
  line?: number;
}

/** A file the runner could not even load (a collection or import error): no test in it ran. */
export interface TestError {
  file: string | null;
  line: number | null;
  message: string;
  stackTrace: string;
}

/** Counts and failures of one test run, whatever the runner. */
export interface TestSummary {
  passed: number;
  failed: number;
  skipped: number;
  failures: TestFailure[];
  /** Errors outside any test (collection errors); absent when the runner reports none. */
  errors?: TestError[];
}

/** Adds several summaries (e.g. one per JUnit report file). */
export function mergeSummaries(summaries: readonly TestSummary[]): TestSummary {
  return summaries.reduce<TestSummary>(
    (total, next) => ({
      passed: total.passed + next.passed,
      failed: total.failed + next.failed,
      skipped: total.skipped + next.skipped,
      failures: [...total.failures, ...next.failures],
      ...(total.errors === undefined && next.errors === undefined
        ? {}
        : { errors: [...(total.errors ?? []), ...(next.errors ?? [])] }),
    }),
    { passed: 0, failed: 0, skipped: 0, failures: [] },
  );
}

/** Where in the project a failure's trace points: pytest's `file.py:12: Error`, a JS `file.ts:12:5` frame, a Java `(File.java:12)` frame. Pure. */
export function locateInTrace(trace: string): { file: string; line: number } | undefined {
  const pytest = [...trace.matchAll(/^([^\s:][^:\n]*\.py):(\d+): /gm)]
    .filter((match) => !/^\/usr\/|site-packages|dist-packages/.test(match[1] as string))
    .at(-1);
  if (pytest) return { file: pytest[1] as string, line: Number(pytest[2]) };
  const js = [...trace.matchAll(/(?:^|[\s(])((?:file:\/\/)?[^\s():]+\.[cm]?[jt]sx?):(\d+):\d+/gm)].find(
    (match) => !/node_modules|^node:|internal\//.test(match[1] as string),
  );
  if (js) return { file: (js[1] as string).replace(/^file:\/\//, ""), line: Number(js[2]) };
  const java = /\bat [\w.$<>]+\(([\w$]+\.(?:java|kt)):(\d+)\)/.exec(trace);
  if (java) return { file: java[1] as string, line: Number(java[2]) };
  return undefined;
}

/** The failures with the file and line their traces point at, where the runner did not say. Pure. */
export function locateFailures(failures: readonly TestFailure[]): TestFailure[] {
  return failures.map((failure) => {
    if (failure.file !== undefined) return failure;
    const where = locateInTrace(failure.stackTrace);
    return where === undefined ? failure : { ...failure, ...where };
  });
}

/** The first line of a failure text, as its message. */
export function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.trim() ?? "";
}
