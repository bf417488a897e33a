/** One failing test, as the agent needs it to act. */
export interface TestFailure {
  testName: string;
  message: string;
  stackTrace: string;
}

/** Counts and failures of one test run, whatever the runner. */
export interface TestSummary {
  passed: number;
  failed: number;
  skipped: number;
  failures: TestFailure[];
}

/** Adds several summaries (e.g. one per JUnit report file). */
export function mergeSummaries(summaries: readonly TestSummary[]): TestSummary {
  return summaries.reduce<TestSummary>(
    (total, next) => ({
      passed: total.passed + next.passed,
      failed: total.failed + next.failed,
      skipped: total.skipped + next.skipped,
      failures: [...total.failures, ...next.failures],
    }),
    { passed: 0, failed: 0, skipped: 0, failures: [] },
  );
}

/** The first line of a failure text, as its message. */
export function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.trim() ?? "";
}
