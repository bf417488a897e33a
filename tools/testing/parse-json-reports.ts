import { firstLine, type TestSummary } from "./test-summary.js";

interface AssertionResult {
  fullName?: string;
  title?: string;
  ancestorTitles?: string[];
  status?: string;
  failureMessages?: string[];
}

interface JestReport {
  testResults?: { name?: string; message?: string; status?: string; assertionResults?: AssertionResult[] }[];
}

/**
 * Reads the JSON report Jest writes with `--json` and Vitest with `--reporter=json` (the
 * same shape). A test file that failed to load counts as one failure. Pure.
 */
export function parseJestJson(json: string): TestSummary {
  const report = JSON.parse(json) as JestReport;
  const summary: TestSummary = { passed: 0, failed: 0, skipped: 0, failures: [] };
  for (const file of report.testResults ?? []) {
    const assertions = file.assertionResults ?? [];
    if (assertions.length === 0 && file.status === "failed") {
      summary.failed += 1;
      summary.failures.push({
        testName: file.name ?? "(test file)",
        message: firstLine(file.message ?? "failed to run"),
        stackTrace: file.message ?? "",
      });
    }
    for (const test of assertions) {
      if (test.status === "passed") summary.passed += 1;
      else if (test.status === "failed") {
        const text = (test.failureMessages ?? []).join("\n");
        summary.failed += 1;
        summary.failures.push({
          testName: test.fullName ?? [...(test.ancestorTitles ?? []), test.title].filter(Boolean).join(" "),
          message: firstLine(text),
          stackTrace: text,
        });
      } else summary.skipped += 1;
    }
  }
  return summary;
}

interface GoEvent {
  Action?: string;
  Package?: string;
  Test?: string;
  Output?: string;
}

/** Reads `go test -json` events: leaf tests only, with their collected output as the failure text. Pure. */
export function parseGoTestJson(output: string): TestSummary {
  const summary: TestSummary = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const outputs = new Map<string, string[]>();
  const results = new Map<string, string>();
  const packageFailures: { pkg: string; lines: string[] }[] = [];
  const packageOutput = new Map<string, string[]>();
  for (const line of output.split("\n")) {
    if (!line.startsWith("{")) continue;
    let event: GoEvent;
    try {
      event = JSON.parse(line) as GoEvent;
    } catch {
      continue;
    }
    if (event.Test === undefined) {
      const lines = packageOutput.get(event.Package ?? "") ?? [];
      if (event.Output !== undefined) lines.push(event.Output);
      packageOutput.set(event.Package ?? "", lines);
      if (event.Action === "fail") packageFailures.push({ pkg: event.Package ?? "", lines });
      continue;
    }
    const key = `${event.Package}\u0000${event.Test}`;
    if (event.Action === "output" && event.Output !== undefined)
      outputs.set(key, [...(outputs.get(key) ?? []), event.Output]);
    if (event.Action === "pass" || event.Action === "fail" || event.Action === "skip") results.set(key, event.Action);
  }
  const names = [...results.keys()];
  for (const [key, action] of results) {
    const test = key.split("\u0000")[1] as string;
    // A parent test with subtests is a summary of them; count leaves only.
    if (names.some((other) => other !== key && other.startsWith(`${key}/`))) continue;
    if (action === "pass") summary.passed += 1;
    else if (action === "skip") summary.skipped += 1;
    else {
      const text = (outputs.get(key) ?? [])
        .filter((line) => !/^(=== RUN|--- FAIL|=== PAUSE|=== CONT)/.test(line))
        .join("");
      summary.failed += 1;
      summary.failures.push({ testName: test, message: firstLine(text) || "failed", stackTrace: text.trim() });
    }
  }
  // A package that failed without any test result did not build.
  for (const { pkg, lines } of packageFailures) {
    if (names.some((key) => key.startsWith(`${pkg}\u0000`))) continue;
    const text = lines.join("");
    summary.failed += 1;
    summary.failures.push({ testName: pkg, message: firstLine(text) || "package failed", stackTrace: text.trim() });
  }
  return summary;
}
