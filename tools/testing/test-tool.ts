import { randomBytes } from "node:crypto";
import { readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { OFFLINE_ENV } from "../build/build-tools.js";
import type { Admit } from "../approvals/admission-client.js";
import type { AccessControl } from "../permissions/access-control.js";
import { inspectProject } from "../project/project-tool.js";
import type { ToolRegistry } from "../registry.js";
import { capText } from "../shell/output-collector.js";
import { runProcess } from "../shell/run-process.js";
import { errorResult, textResult } from "../tool-result.js";
import { parseJestJson } from "./parse-json-reports.js";
import { parseJUnitXml } from "./parse-junit.js";
import { parseTestOutput } from "./parse-test-output.js";
import { planTestRun, type ReportPlan } from "./plan-test-run.js";
import { locateFailures, mergeSummaries, type TestSummary } from "./test-summary.js";

const TEST_TIMEOUT_MS = 20 * 60_000;
const MAX_TEST_OUTPUT_BYTES = 8 * 1024 * 1024;
const OUTPUT_TAIL_CHARS = 4_000;
const MAX_FAILURES_LISTED = 20;
const MAX_STACK_CHARS = 2_000;

async function readReport(report: ReportPlan, cwd: string, startedMs: number): Promise<TestSummary | undefined> {
  try {
    if (report.format === "junit") return parseJUnitXml(await readFile(report.path, "utf8"));
    if (report.format === "jest-json") return parseJestJson(await readFile(report.path, "utf8"));
    const dir = path.join(cwd, report.dir);
    const files = (await readdir(dir, { recursive: true })).filter((name) => name.endsWith(".xml"));
    const fresh: TestSummary[] = [];
    for (const name of files) {
      const file = path.join(dir, name);
      if ((await stat(file)).mtimeMs >= startedMs - 1_000) fresh.push(parseJUnitXml(await readFile(file, "utf8")));
    }
    return fresh.length > 0 ? mergeSummaries(fresh) : undefined;
  } catch {
    return undefined;
  } finally {
    if (report.format !== "junit-dir") await rm(report.path, { force: true });
  }
}

async function readTestScript(cwd: string): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(await readFile(path.join(cwd, "package.json"), "utf8")) as {
      scripts?: Record<string, string>;
    };
    return manifest.scripts?.test;
  } catch {
    return undefined;
  }
}

/** The overall line coverage from node's coverage report (`# all files | 85.71 | ...`), if present. Pure. */
export function parseLineCoverage(output: string): number | undefined {
  const match = /^#?\s*all files\s*\|\s*([\d.]+)/m.exec(output);
  return match ? Number(match[1]) : undefined;
}

/** Registers `test_run`. */
export function registerTestTool(registry: ToolRegistry, access: AccessControl, admit: Admit): void {
  registry.register({
    name: "test_run",
    description:
      "Run the tests (default: the detected test command) and answer {success, passed, failed, skipped, durationMs, failures: [{testName, message, stackTrace}], command, exitCode}. Uses the runner's machine-readable report where it has one (JUnit XML, Jest/Vitest JSON, TAP, go test -json).",
    inputSchema: {
      command: z.string().min(1).optional().describe("Test command; default: project_info's testCommand"),
      filter: z
        .string()
        .min(1)
        .optional()
        .describe("Only tests matching this name, in the runner's syntax (pytest -k, go -run, vitest/jest -t, ...)"),
      cwd: z.string().optional().describe("Working directory relative to /workspace"),
      timeoutMs: z
        .number()
        .int()
        .min(1_000)
        .max(TEST_TIMEOUT_MS)
        .optional()
        .describe("Timeout in milliseconds (default 20 minutes)"),
      coverage: z.boolean().optional().describe("Measure line coverage where the runner can (node --test)"),
    },
    annotations: { destructiveHint: false, openWorldHint: false },
    handler: async ({ command, filter, cwd, timeoutMs, coverage }, { signal }) => {
      const directory = await access.resolve(cwd ?? ".", "read");
      const base = command ?? inspectProject(directory.absolute).testCommand;
      if (base === null)
        return errorResult(
          "No test command was given and none could be detected (project_info says unknown). Pass command.",
        );
      await access.checkCommand(base);
      const reportPath = path.join(tmpdir(), `workcell-test-report-${randomBytes(6).toString("hex")}`);
      const plan = planTestRun(base, {
        filter,
        reportPath,
        testScript: await readTestScript(directory.absolute),
        coverage,
      });
      const startedMs = Date.now();
      const env = plan.packageBin
        ? { ...OFFLINE_ENV, PATH: `${path.join(directory.absolute, "node_modules", ".bin")}:${process.env.PATH ?? ""}` }
        : OFFLINE_ENV;
      const release = await admit("test_run");
      const run = await runProcess({
        command: plan.command,
        cwd: directory.absolute,
        timeoutMs: timeoutMs ?? TEST_TIMEOUT_MS,
        maxOutputBytes: MAX_TEST_OUTPUT_BYTES,
        env,
        signal,
      }).finally(release);
      const combined = `${run.stdout}\n${run.stderr}`;
      const parsed =
        (plan.report ? await readReport(plan.report, directory.absolute, startedMs) : undefined) ??
        parseTestOutput(combined);
      const summary: TestSummary =
        parsed ??
        (run.exitCode === 0
          ? { passed: 0, failed: 0, skipped: 0, failures: [] }
          : {
              passed: 0,
              failed: 1,
              skipped: 0,
              failures: [
                {
                  testName: "(test command)",
                  message: `exit code ${run.exitCode ?? "none"}${run.timedOut ? " (timed out)" : ""}`,
                  stackTrace: capText(combined.trim(), OUTPUT_TAIL_CHARS).text,
                },
              ],
            });
      const errors = (summary.errors ?? []).map((error) => ({
        ...error,
        stackTrace: capText(error.stackTrace, MAX_STACK_CHARS).text,
      }));
      const success = run.exitCode === 0 && !run.timedOut && summary.failed === 0 && errors.length === 0;
      const failures = locateFailures(summary.failures).map((failure) => ({
        ...failure,
        stackTrace: capText(failure.stackTrace, MAX_STACK_CHARS).text,
      }));
      const lineCoverage = parseLineCoverage(combined);
      const structured = {
        success,
        passed: summary.passed,
        failed: summary.failed,
        skipped: summary.skipped,
        durationMs: run.durationMs,
        failures,
        errors,
        command: plan.command,
        exitCode: run.exitCode,
        timedOut: run.timedOut,
        parsed: parsed !== undefined,
        ...(lineCoverage === undefined ? {} : { lineCoverage }),
      };
      const lines = [
        `${success ? "Tests passed" : "Tests failed"}: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped${errors.length > 0 ? `, ${errors.length} errors outside any test` : ""} in ${run.durationMs} ms (exit code ${run.exitCode ?? "none"}${run.timedOut ? ", timed out" : ""}) — ${plan.command}`,
        ...errors.map(
          (error) =>
            `ERROR ${error.file === null ? "" : `${error.file}${error.line === null ? "" : `:${error.line}`}: `}${error.message} (no test in it ran)`,
        ),
        ...failures
          .slice(0, MAX_FAILURES_LISTED)
          .map(
            (failure) =>
              `FAILED ${failure.testName}${failure.file === undefined ? "" : ` (${failure.file}:${failure.line})`}: ${failure.message}`,
          ),
      ];
      if (failures.length > MAX_FAILURES_LISTED)
        lines.push(`... and ${failures.length - MAX_FAILURES_LISTED} more failures`);
      if (parsed === undefined)
        lines.push(`Output (not in a format test_run knows):\n${capText(combined.trim(), OUTPUT_TAIL_CHARS).text}`);
      return textResult(lines.join("\n"), structured);
    },
  });
}
