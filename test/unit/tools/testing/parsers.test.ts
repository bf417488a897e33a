import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseGoTestJson, parseJestJson } from "../../../../tools/testing/parse-json-reports.js";
import { parseJUnitXml } from "../../../../tools/testing/parse-junit.js";
import { detectTextFormat, parseTestOutput } from "../../../../tools/testing/parse-test-output.js";
import {
  parseCargoTest,
  parseJsRunnerText,
  parsePytestText,
  parseTap,
} from "../../../../tools/testing/parse-text-reports.js";
import { locateFailures, locateInTrace } from "../../../../tools/testing/test-summary.js";

const fixture = (name: string) => readFileSync(path.join(__dirname, "../../../fixtures/outputs", name), "utf8");

describe("where failures are, and what is not a failed test", () => {
  it("pytest: the failing line from the trace, the values in the message (src layout, captured in the sandbox image)", () => {
    const summary = parseJUnitXml(fixture("pytest-assert-src-layout.xml"));
    expect({ passed: summary.passed, failed: summary.failed, errors: summary.errors }).toEqual({
      passed: 1,
      failed: 1,
      errors: undefined,
    });
    expect(summary.failures[0]).toMatchObject({
      testName: "tests.test_calc > test_add",
      file: "tests/test_calc.py",
      line: 5,
      message: "assert -1 == 3\n +  where -1 = add(1, 2)",
    });
  });

  it("pytest: a module that cannot be imported is an error of the run, not a failed test", () => {
    const summary = parseJUnitXml(fixture("pytest-collection-error.xml"));
    expect({ passed: summary.passed, failed: summary.failed, failures: summary.failures }).toEqual({
      passed: 0,
      failed: 0,
      failures: [],
    });
    expect(summary.errors).toHaveLength(1);
    expect(summary.errors?.[0]).toMatchObject({
      file: "tests/test_broken.py",
      line: 1,
      message: "ModuleNotFoundError: No module named 'missing_module'",
    });
  });

  it("Vitest, Jest and Java traces: the first frame in the project", () => {
    const vitest = locateFailures(parseJestJson(fixture("vitest.json")).failures);
    expect(vitest[0]).toMatchObject({ line: 4 });
    expect(vitest[0]?.file).toMatch(/sum\.test\.ts$/);
    expect(
      locateInTrace(
        "Error: boom\n    at Object.<anonymous> (/w/node_modules/x/index.js:3:9)\n    at run (/w/src/app.test.js:12:5)",
      ),
    ).toEqual({ file: "/w/src/app.test.js", line: 12 });
    expect(
      locateInTrace(
        "org.opentest4j.AssertionFailedError: expected: <4> but was: <6>\n\tat org.junit.Assert.fail(Assert.java:89)\n\tat CalcTest.doubles(CalcTest.java:12)",
      ),
    ).toEqual({ file: "Assert.java", line: 89 });
    expect(locateInTrace("no location here")).toBeUndefined();
  });
});

describe("test result parsers on real runner output", () => {
  it("node --test TAP: leaf tests only, nested names, message and stack from YAML", () => {
    const summary = parseTap(fixture("node-test-tap.txt"));
    expect({ passed: summary.passed, failed: summary.failed, skipped: summary.skipped }).toEqual({
      passed: 2,
      failed: 2,
      skipped: 1,
    });
    expect(summary.failures.map((f) => f.testName)).toEqual(["subtracts numbers", "suite of things > inner fails"]);
    expect(summary.failures[0]?.message).toBe("Expected values to be strictly equal: (expected 1, actual 2)");
    expect(summary.failures[0]).toMatchObject({ file: "/tmp/cap/nodetest/math.test.mjs", line: 4 });
    expect(summary.failures[0]?.stackTrace).toContain("2 !== 1");
    expect(summary.failures[0]?.stackTrace).toContain("math.test.mjs:4:42");
    expect(summary.failures[1]?.message).toBe("inner boom");
  });

  it("Vitest JSON report", () => {
    const summary = parseJestJson(fixture("vitest.json"));
    expect({ passed: summary.passed, failed: summary.failed, skipped: summary.skipped }).toEqual({
      passed: 1,
      failed: 1,
      skipped: 1,
    });
    expect(summary.failures[0]).toMatchObject({
      testName: "sum fails on purpose",
      message: "AssertionError: expected 4 to be 5 // Object.is equality",
    });
    expect(summary.failures[0]?.stackTrace).toContain("sum.test.ts:4:48");
  });

  it("Jest JSON report", () => {
    const summary = parseJestJson(fixture("jest.json"));
    expect({ passed: summary.passed, failed: summary.failed, skipped: summary.skipped }).toEqual({
      passed: 1,
      failed: 1,
      skipped: 1,
    });
    expect(summary.failures[0]).toMatchObject({
      testName: "sum fails on purpose",
      message: "Error: expect(received).toBe(expected) // Object.is equality",
    });
  });

  it("JUnit XML from pytest, with entities decoded", () => {
    const summary = parseJUnitXml(fixture("pytest-junit.xml"));
    expect({ passed: summary.passed, failed: summary.failed, skipped: summary.skipped }).toEqual({
      passed: 2,
      failed: 1,
      skipped: 1,
    });
    expect(summary.failures[0]).toMatchObject({
      testName: "test_calc > test_fails_on_purpose",
      message: "assert 4 == 5\n +  where 4 = add(2, 2)",
    });
    expect(summary.failures[0]?.stackTrace).toContain(">       assert add(2, 2) == 5");
  });

  it("JUnit XML from Vitest", () => {
    const summary = parseJUnitXml(fixture("vitest-junit.xml"));
    expect({ passed: summary.passed, failed: summary.failed, skipped: summary.skipped }).toEqual({
      passed: 1,
      failed: 1,
      skipped: 1,
    });
    expect(summary.failures[0]?.testName).toBe("sum.test.ts > sum > fails on purpose");
  });

  it("pytest terminal output", () => {
    const summary = parsePytestText(fixture("pytest-text.txt"));
    expect({ passed: summary.passed, failed: summary.failed, skipped: summary.skipped }).toEqual({
      passed: 2,
      failed: 1,
      skipped: 1,
    });
    expect(summary.failures[0]).toMatchObject({
      testName: "test_calc.py::test_fails_on_purpose",
      message: "assert 4 == 5",
    });
    expect(summary.failures[0]?.stackTrace).toContain("test_calc.py:10: AssertionError");
  });

  it("cargo test output across test binaries", () => {
    const summary = parseCargoTest(fixture("cargo-test.txt"));
    expect({ passed: summary.passed, failed: summary.failed, skipped: summary.skipped }).toEqual({
      passed: 1,
      failed: 1,
      skipped: 1,
    });
    expect(summary.failures[0]).toMatchObject({
      testName: "fails_on_purpose",
      message: "assertion `left == right` failed: math is broken",
    });
    expect(summary.failures[0]?.stackTrace).toContain("left: 4");
  });

  it("Vitest's default reporter summary line", () => {
    const summary = parseJsRunnerText(fixture("vitest-text.txt"));
    expect(summary).toMatchObject({ passed: 1, failed: 1, skipped: 1 });
    expect(summary?.failures.map((f) => f.testName)).toEqual(["sum.test.ts > sum > fails on purpose"]);
  });

  it("detects each text format", () => {
    expect(detectTextFormat(fixture("node-test-tap.txt"))).toBe("tap");
    expect(detectTextFormat(fixture("pytest-text.txt"))).toBe("pytest");
    expect(detectTextFormat(fixture("cargo-test.txt"))).toBe("cargo");
    expect(detectTextFormat(fixture("vitest-text.txt"))).toBe("js-runner");
    expect(parseTestOutput("hello world")).toBeUndefined();
  });
});

describe("go test -json", () => {
  it("reads a real event stream: leaf tests only, subtests named parent/child, output as the failure text", () => {
    const summary = parseGoTestJson(fixture("go-test.json"));
    expect({ passed: summary.passed, failed: summary.failed, skipped: summary.skipped }).toEqual({
      passed: 1,
      failed: 2,
      skipped: 1,
    });
    expect(summary.failures.map((f) => f.testName)).toEqual(["TestSub/positive", "TestSub/zero"]);
    expect(summary.failures[0]?.message).toBe("math_test.go:16: Sub(5, 3) = 3, want 2");
  });

  it("counts leaf tests and collects a failing test's output", () => {
    const events = [
      { Action: "run", Package: "demo", Test: "TestAdd" },
      { Action: "output", Package: "demo", Test: "TestAdd", Output: "=== RUN   TestAdd\n" },
      { Action: "pass", Package: "demo", Test: "TestAdd" },
      { Action: "run", Package: "demo", Test: "TestTable" },
      { Action: "run", Package: "demo", Test: "TestTable/neg" },
      { Action: "output", Package: "demo", Test: "TestTable/neg", Output: "    math_test.go:12: got 1, want -1\n" },
      { Action: "fail", Package: "demo", Test: "TestTable/neg" },
      { Action: "fail", Package: "demo", Test: "TestTable" },
      { Action: "skip", Package: "demo", Test: "TestLater" },
      { Action: "fail", Package: "demo" },
    ].map((event) => JSON.stringify(event));
    const summary = parseGoTestJson(events.join("\n"));
    expect({ passed: summary.passed, failed: summary.failed, skipped: summary.skipped }).toEqual({
      passed: 1,
      failed: 1,
      skipped: 1,
    });
    expect(summary.failures[0]).toMatchObject({
      testName: "TestTable/neg",
      message: "math_test.go:12: got 1, want -1",
    });
  });

  it("reports a package that failed to build as a failure", () => {
    const events = [
      { Action: "output", Package: "demo", Output: "# demo\n" },
      { Action: "output", Package: "demo", Output: "./math.go:3:9: undefined: nope\n" },
      { Action: "fail", Package: "demo" },
    ].map((event) => JSON.stringify(event));
    const summary = parseGoTestJson(events.join("\n"));
    expect(summary.failed).toBe(1);
    expect(summary.failures[0]?.stackTrace).toContain("undefined: nope");
  });
});
