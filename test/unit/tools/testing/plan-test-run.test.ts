import { describe, expect, it } from "vitest";
import { planTestRun, shellQuote } from "../../../../tools/testing/plan-test-run.js";

const reportPath = "/tmp/report";

describe("planTestRun", () => {
  it("asks pytest for JUnit XML and turns the filter into -k", () => {
    expect(planTestRun("python3 -m pytest", { reportPath, filter: "even count" })).toEqual({
      command: "python3 -m pytest --junitxml='/tmp/report' -k 'even count'",
      report: { format: "junit", path: reportPath },
    });
  });

  it("resolves npm test through the package's script and passes flags after --", () => {
    expect(
      planTestRun("npm test", { reportPath, testScript: "tsc -p . && node --test test/", filter: "mean" }),
    ).toEqual({
      command: "tsc -p . && node --test --test-reporter=tap --test-name-pattern='mean' test/",
      report: undefined,
      packageBin: true,
    });
    expect(planTestRun("node --test", { reportPath }).command).toBe("node --test --test-reporter=tap");
    expect(planTestRun("npm test", { reportPath, testScript: "vitest run", filter: "adds" })).toEqual({
      command: "npm test -- --reporter=json --outputFile='/tmp/report' -t 'adds'",
      report: { format: "jest-json", path: reportPath },
    });
    expect(planTestRun("yarn test", { reportPath, testScript: "jest" }).command).toBe(
      "yarn test --json --outputFile='/tmp/report'",
    );
  });

  it("adds -json to go test and -run for the filter", () => {
    expect(planTestRun("go test ./...", { reportPath, filter: "TestAdd" }).command).toBe(
      "go test -json ./... -run 'TestAdd'",
    );
  });

  it("reads JUnit report directories for Gradle and Maven", () => {
    expect(planTestRun("./gradlew test", { reportPath, filter: "CalcTest" })).toEqual({
      command: "./gradlew test --tests 'CalcTest'",
      report: { format: "junit-dir", dir: "build/test-results" },
    });
    expect(planTestRun("mvn -q test", { reportPath }).report).toEqual({
      format: "junit-dir",
      dir: "target/surefire-reports",
    });
  });

  it("passes the filter to cargo test and leaves unknown commands alone", () => {
    expect(planTestRun("cargo test", { reportPath, filter: "adds" }).command).toBe("cargo test 'adds'");
    expect(planTestRun("make check", { reportPath })).toEqual({ command: "make check", report: undefined });
  });

  it("quotes for bash, single quotes included", () => {
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });
});
