import { readFile } from "node:fs/promises";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { openFileBeneath } from "../fs/beneath.js";
import type { ToolRegistry } from "../registry.js";
import { runProcess } from "../shell/run-process.js";
import { textResult, type ToolCallContext } from "../tool-result.js";
import { checkGherkin } from "./gherkin-check.js";
import { QUALITY_TOOL } from "../../contract/wire.js";
import { constants } from "node:fs";

/** One check and its outcome. */
interface Check {
  name: string;
  passed: boolean;
  detail: string;
}

const CONTEXTS = [
  "post_feature_file",
  "post_step_defs",
  "post_unit_tests",
  "post_implementation",
  "post_refactor",
  "post_validation",
] as const;

async function featureFiles(root: string): Promise<string[]> {
  const run = await runProcess({
    command: ["rg", "--files", "--glob", "*.feature"],
    cwd: root,
    timeoutMs: 30_000,
    maxOutputBytes: 1024 * 1024,
  });
  return run.stdout.split("\n").filter(Boolean).sort();
}

async function readBeneath(root: string, relative: string): Promise<string> {
  const handle = await openFileBeneath(root, relative, constants.O_RDONLY);
  try {
    return handle.readText();
  } finally {
    handle.closeNow();
  }
}

async function lintCommand(root: string): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as {
      scripts?: Record<string, string>;
    };
    return manifest.scripts?.lint === undefined ? undefined : "npm run lint --silent";
  } catch {
    return undefined;
  }
}

const structuredOf = (result: CallToolResult) => (result.structuredContent ?? {}) as Record<string, unknown>;

/**
 * Registers `quality_checks {context}`: the checks that fit the pipeline stage, run with
 * the project's own commands. After implementation and refactor they are blocking.
 */
export function registerQualityTool(registry: ToolRegistry, root: string): void {
  registry.register({
    name: QUALITY_TOOL,
    description:
      "Run the quality checks that fit a BDD stage: Gherkin syntax and lint after feature files; lint and type-check after step definitions; tests expected to fail after unit tests; lint, type-check, all tests and coverage after implementation; the full suite with coverage not lower than before after refactor.",
    inputSchema: {
      context: z.enum(CONTEXTS).describe("The stage the checks follow"),
      baselineCoverage: z
        .number()
        .min(0)
        .max(100)
        .optional()
        .describe("Line coverage before the refactor, to compare against"),
    },
    annotations: { readOnlyHint: false, destructiveHint: false },
    handler: async ({ context, baselineCoverage }, call: ToolCallContext) => {
      const checks: Check[] = [];
      let coverage: number | undefined;
      const lint = async (blocking: boolean) => {
        const command = await lintCommand(root);
        if (command === undefined)
          return checks.push({ name: "lint", passed: true, detail: "no lint script configured; skipped" });
        const run = await runProcess({ command, cwd: root, timeoutMs: 10 * 60_000, maxOutputBytes: 200_000 });
        checks.push({
          name: "lint",
          passed: run.exitCode === 0 || !blocking,
          detail: run.exitCode === 0 ? "clean" : (run.stdout + run.stderr).trim().slice(-2_000),
        });
      };
      const typeCheck = async (blocking: boolean) => {
        const result = structuredOf(await registry.call("code_validate", {}, call));
        const passed = result.success === true;
        checks.push({
          name: "type-check",
          passed: passed || !blocking,
          detail: passed
            ? "no errors"
            : `${result.errorCount ?? "?"} errors: ${JSON.stringify(result.errors ?? []).slice(0, 1_500)}`,
        });
      };
      const tests = async (expectation: "pass" | "fail") => {
        const result = structuredOf(await registry.call("test_run", { coverage: true }, call));
        if (typeof result.lineCoverage === "number") coverage = result.lineCoverage;
        const summary = `${result.passed ?? 0} passed, ${result.failed ?? 0} failed`;
        if (expectation === "fail") {
          checks.push({
            name: "tests fail before the implementation",
            passed: true,
            detail:
              (result.failed as number) > 0
                ? `as expected: ${summary}`
                : `note: nothing fails yet (${summary}); the unit tests may not test the new behaviour`,
          });
        } else {
          const failures = (result.failures as { testName: string; message: string }[] | undefined) ?? [];
          checks.push({
            name: "all tests pass",
            passed: result.success === true,
            detail:
              result.success === true
                ? summary
                : `${summary}: ${failures
                    .slice(0, 5)
                    .map((f) => `${f.testName}: ${f.message}`)
                    .join("; ")}`,
          });
        }
      };

      if (context === "post_feature_file") {
        const files = await featureFiles(root);
        const problems: string[] = [];
        for (const file of files)
          for (const problem of checkGherkin(await readBeneath(root, file)))
            problems.push(`${file}:${problem.line}: ${problem.message}`);
        checks.push({
          name: "gherkin syntax",
          passed: files.length > 0 && problems.length === 0,
          detail:
            files.length === 0
              ? "no .feature files found"
              : problems.join("\n") || `${files.length} feature file(s) are well-formed`,
        });
        await lint(false);
      } else if (context === "post_step_defs") {
        await lint(false);
        await typeCheck(false);
      } else if (context === "post_unit_tests") {
        await tests("fail");
      } else if (context === "post_implementation") {
        await lint(true);
        await typeCheck(true);
        await tests("pass");
      } else if (context === "post_refactor") {
        await typeCheck(true);
        await tests("pass");
        if (coverage !== undefined && baselineCoverage !== undefined) {
          checks.push({
            name: "coverage not lower",
            passed: coverage >= baselineCoverage,
            detail: `${coverage}% now, ${baselineCoverage}% before`,
          });
        }
      } else {
        await tests("pass");
      }
      const blocking = context === "post_implementation" || context === "post_refactor";
      const passed = checks.every((check) => check.passed);
      const lines = checks.map((check) => `${check.passed ? "PASS" : "FAIL"} ${check.name}: ${check.detail}`);
      if (coverage !== undefined) lines.push(`line coverage: ${coverage}%`);
      return textResult(
        `Quality checks (${context}): ${passed ? "passed" : blocking ? "FAILED — blocking" : "failed (not blocking)"}\n${lines.join("\n")}`,
        {
          context,
          passed,
          blocking: blocking && !passed,
          checks,
          ...(coverage === undefined ? {} : { coverage }),
        },
      );
    },
  });
}
