import { parseGoTestJson } from "./parse-json-reports.js";
import { parseCargoTest, parseJsRunnerText, parsePytestText, parseTap } from "./parse-text-reports.js";
import type { TestSummary } from "./test-summary.js";

/** The text formats test_run recognises when no machine-readable report was written. */
export type TextFormat = "tap" | "go-json" | "cargo" | "pytest" | "js-runner" | "unknown";

/** Guesses the format of a test runner's console output. Pure. */
export function detectTextFormat(output: string): TextFormat {
  if (/^\{"(Time|Action)":/m.test(output)) return "go-json";
  if (/^TAP version \d+/m.test(output) || /^\s*(not )?ok \d+ - /m.test(output)) return "tap";
  if (/^test result: (ok|FAILED)\./m.test(output)) return "cargo";
  if (/\d+ (passed|failed|skipped).* in [\d.]+s/.test(output) && /(^|\n)(={3,}|[.FsEx]+\s+\[)/.test(output))
    return "pytest";
  if (/^\s*Tests:?\s+.*\d+ (passed|failed|total)/m.test(output)) return "js-runner";
  return "unknown";
}

/** Parses console output in whichever known format it is in; undefined when none fits. Pure. */
export function parseTestOutput(output: string): TestSummary | undefined {
  switch (detectTextFormat(output)) {
    case "go-json":
      return parseGoTestJson(output);
    case "tap":
      return parseTap(output);
    case "cargo":
      return parseCargoTest(output);
    case "pytest":
      return parsePytestText(output);
    case "js-runner":
      return parseJsRunnerText(output);
    default:
      return undefined;
  }
}
