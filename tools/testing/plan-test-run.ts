/** Where a runner was asked to write a machine-readable report. */
export type ReportPlan =
  { format: "junit"; path: string } | { format: "jest-json"; path: string } | { format: "junit-dir"; dir: string };

/** The command test_run executes and where its report will be. */
export interface TestPlan {
  command: string;
  report: ReportPlan | undefined;
  /** The command is a package script run directly: node_modules/.bin must be on PATH. */
  packageBin?: boolean;
}

/** Quotes a value for bash. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const PACKAGE_TEST = /^\s*(npm|pnpm|yarn)\s+(?:run\s+)?test\b/;

/**
 * Turns a test command into one that writes a machine-readable report where the runner can
 * (pytest and Gradle/Maven JUnit XML, Jest/Vitest JSON, node TAP, go test -json), with the
 * filter in the runner's own syntax. `npm test` style commands are resolved through the
 * package's test script. Pure.
 */
export function planTestRun(
  command: string,
  options: {
    filter?: string | undefined;
    reportPath: string;
    testScript?: string | undefined;
    coverage?: boolean | undefined;
  },
): TestPlan {
  const { filter, reportPath } = options;
  const packageTest = PACKAGE_TEST.exec(command);
  const runnerText = packageTest && options.testScript !== undefined ? options.testScript : command;
  const extra: string[] = [];
  let report: ReportPlan | undefined;

  if (/\bpytest\b/.test(runnerText)) {
    extra.push(`--junitxml=${shellQuote(reportPath)}`);
    if (filter) extra.push("-k", shellQuote(filter));
    report = { format: "junit", path: reportPath };
  } else if (/\bvitest\b/.test(runnerText)) {
    extra.push("--reporter=json", `--outputFile=${shellQuote(reportPath)}`);
    if (filter) extra.push("-t", shellQuote(filter));
    report = { format: "jest-json", path: reportPath };
  } else if (/\bjest\b/.test(runnerText)) {
    extra.push("--json", `--outputFile=${shellQuote(reportPath)}`);
    if (filter) extra.push("-t", shellQuote(filter));
    report = { format: "jest-json", path: reportPath };
  } else if (/\bnode\b[^&|;]*\s--test\b/.test(runnerText)) {
    // node wants its options before the test files, so they go right after --test; a
    // package script is run directly for that (npm would append them after the files).
    const flags = ` --test-reporter=tap${options.coverage ? " --experimental-test-coverage" : ""}${filter ? ` --test-name-pattern=${shellQuote(filter)}` : ""}`;
    const injected = runnerText.replace(/(\bnode\b[^&|;]*?\s--test)\b/, `$1${flags}`);
    return { command: injected, report: undefined, ...(packageTest ? { packageBin: true } : {}) };
  } else if (/\bgo\s+test\b/.test(runnerText) && !packageTest) {
    const withJson = /\s-json\b/.test(command) ? command : command.replace(/\bgo\s+test\b/, "go test -json");
    return { command: filter ? `${withJson} -run ${shellQuote(filter)}` : withJson, report: undefined };
  } else if (/\bcargo\s+test\b/.test(runnerText) && !packageTest) {
    return {
      command: filter ? command.replace(/\bcargo\s+test\b/, `cargo test ${shellQuote(filter)}`) : command,
      report: undefined,
    };
  } else if (/\bgradlew?\b/.test(runnerText) && !packageTest) {
    return {
      command: filter ? `${command} --tests ${shellQuote(filter)}` : command,
      report: { format: "junit-dir", dir: "build/test-results" },
    };
  } else if (/\bmvn\b/.test(runnerText) && !packageTest) {
    return {
      command: filter ? `${command} -Dtest=${shellQuote(filter)}` : command,
      report: { format: "junit-dir", dir: "target/surefire-reports" },
    };
  }

  if (extra.length === 0) return { command, report };
  const separator = packageTest && packageTest[1] !== "yarn" ? " --" : "";
  return { command: `${command}${separator} ${extra.join(" ")}`, report };
}
