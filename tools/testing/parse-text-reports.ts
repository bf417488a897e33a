import { firstLine, type TestSummary } from "./test-summary.js";

const TAP_RESULT = /^(\s*)(not ok|ok)\b\s*\d*\s*(?:-\s*)?(.*?)(?:\s+#\s*(SKIP|TODO)\b.*)?$/i;
const TAP_SUBTEST = /^(\s*)# Subtest: (.*)$/;

/**
 * Reads TAP (node's test runner with `--test-reporter=tap`, and any TAP producer): leaf
 * tests only (a parent whose subtests ran is their summary), names joined with " > ",
 * failure message and stack taken from the YAML block. Pure.
 */
export function parseTap(output: string): TestSummary {
  const summary: TestSummary = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const lines = output.split("\n");
  const subtestNames = new Map<number, string>();
  const hadChildren = new Map<number, boolean>();
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const subtest = TAP_SUBTEST.exec(line);
    if (subtest) {
      subtestNames.set((subtest[1] as string).length, subtest[2] as string);
      continue;
    }
    const result = TAP_RESULT.exec(line);
    if (!result) continue;
    const indent = (result[1] as string).length;
    const isParent = hadChildren.get(indent) === true;
    hadChildren.set(indent, false);
    for (const depth of hadChildren.keys()) if (depth < indent) hadChildren.set(depth, true);
    for (let depth = 0; depth < indent; depth += 1)
      if (!hadChildren.has(depth) && subtestNames.has(depth)) hadChildren.set(depth, true);
    const yaml = readYamlBlock(lines, i + 1, indent + 2);
    if (isParent) continue;
    const parents = [...subtestNames.entries()]
      .filter(([depth]) => depth < indent)
      .sort(([a], [b]) => a - b)
      .map(([, name]) => name);
    const name = [...parents, result[3] as string].join(" > ");
    if (result[4] !== undefined) summary.skipped += 1;
    else if (result[2]?.toLowerCase() === "ok") summary.passed += 1;
    else {
      summary.failed += 1;
      const error = yaml.error ?? "failed";
      // node:test puts an assertion's values in their own entries, not in the error's first line.
      const values =
        yaml.expected !== undefined || yaml.actual !== undefined
          ? ` (expected ${yaml.expected ?? "?"}, actual ${yaml.actual ?? "?"})`
          : "";
      const location = /^(?:file:\/\/)?(.+):(\d+):\d+$/.exec(yaml.location ?? "");
      summary.failures.push({
        testName: name,
        message: `${firstLine(error)}${values}`,
        stackTrace: [error, yaml.stack].filter(Boolean).join("\n"),
        ...(location === null ? {} : { file: location[1] as string, line: Number(location[2]) }),
      });
    }
  }
  return summary;
}

type YamlEntries = { error?: string; stack?: string; expected?: string; actual?: string; location?: string };

/** The `error`, `stack`, `expected`, `actual` and `location` entries of a TAP YAML diagnostic block starting at `start`. */
function readYamlBlock(lines: readonly string[], start: number, indent: number): YamlEntries {
  if ((lines[start] ?? "").trim() !== "---") return {};
  const out: YamlEntries = {};
  for (let i = start + 1; i < lines.length; i += 1) {
    const line = lines[i] as string;
    if (line.trim() === "...") break;
    const entry = /^(\s*)(error|stack|expected|actual|location):\s*(.*)$/.exec(line);
    if (!entry || (entry[1] as string).length !== indent) continue;
    const key = entry[2] as keyof YamlEntries;
    const value = entry[3] as string;
    if (value === "|-" || value === "|" || value === ">-" || value === "") {
      const block: string[] = [];
      while (
        i + 1 < lines.length &&
        ((lines[i + 1] as string).startsWith(" ".repeat(indent + 2)) || (lines[i + 1] as string).trim() === "")
      ) {
        i += 1;
        if ((lines[i] as string).trim() === "...") break;
        block.push((lines[i] as string).slice(indent + 2));
      }
      out[key] = block.join("\n").trim();
    } else
      out[key] = value
        .replace(/^'(.*)'$/, "$1")
        .replace(/^"(.*)"$/, "$1")
        .replace(/''/g, "'");
  }
  return out;
}

/** Reads pytest's terminal output: the summary line's counts and the FAILED/ERROR lines with their tracebacks. Pure. */
export function parsePytestText(output: string): TestSummary {
  const summary: TestSummary = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const summaryLine =
    output
      .split("\n")
      .reverse()
      .find((line) => /\d+ (passed|failed|skipped|error|errors)\b.* in [\d.]+s/.test(line)) ?? "";
  for (const [, count, kind] of summaryLine.matchAll(/(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)/g)) {
    const n = Number(count);
    if (kind === "passed" || kind === "xpassed") summary.passed += n;
    else if (kind === "failed" || kind === "error" || kind === "errors") summary.failed += n;
    else summary.skipped += n;
  }
  const blocks = splitPytestSections(output);
  for (const match of output.matchAll(/^(FAILED|ERROR) (\S+)(?: - (.*))?$/gm)) {
    const id = match[2] as string;
    const short = id.split("::").pop() ?? id;
    summary.failures.push({
      testName: id,
      message: (match[3] ?? match[1] ?? "").trim(),
      stackTrace: blocks.get(short) ?? "",
    });
  }
  return summary;
}

function splitPytestSections(output: string): Map<string, string> {
  const sections = new Map<string, string>();
  const pattern = /^_{3,} (.+?) _{3,}$/gm;
  const heads = [...output.matchAll(pattern)];
  heads.forEach((head, index) => {
    const start = (head.index ?? 0) + head[0].length;
    const next = heads[index + 1]?.index ?? output.search(/^={3,} short test summary/m);
    const end = next !== undefined && next > start ? next : output.length;
    const name = (head[1] as string).split(".").pop() as string;
    sections.set(name, output.slice(start, end).trim());
  });
  return sections;
}

/** Reads `cargo test` output across all test binaries: per-test lines and the `---- name stdout ----` blocks. Pure. */
export function parseCargoTest(output: string): TestSummary {
  const summary: TestSummary = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const details = new Map<string, string>();
  for (const match of output.matchAll(
    /^---- (.+?) stdout ----\n([\s\S]*?)(?=\n---- .+? stdout ----|\n\nfailures:|\ntest result:)/gm,
  )) {
    details.set(match[1] as string, (match[2] as string).trim());
  }
  for (const match of output.matchAll(/^test (.+?) \.\.\. (ok|FAILED|ignored)(?:, .*)?$/gm)) {
    const name = match[1] as string;
    if (match[2] === "ok") summary.passed += 1;
    else if (match[2] === "ignored") summary.skipped += 1;
    else {
      const detail = details.get(name) ?? "";
      const panic = /panicked at [^\n]*:\n([^\n]*)/.exec(detail);
      summary.failed += 1;
      summary.failures.push({
        testName: name,
        message: panic?.[1]?.trim() ?? firstLine(detail) ?? "failed",
        stackTrace: detail,
      });
    }
  }
  return summary;
}

/** Reads only the summary line of Vitest's or Jest's default reporter, and the names of failed tests. Pure. */
export function parseJsRunnerText(output: string): TestSummary | undefined {
  // eslint-disable-next-line no-control-regex
  const text = output.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");
  const line = /^\s*Tests:?\s+(.*\d+ (?:passed|failed|skipped|total).*)$/m.exec(text)?.[1];
  if (line === undefined) return undefined;
  const count = (kind: string) => Number(new RegExp(`(\\d+) ${kind}`).exec(line)?.[1] ?? 0);
  // Vitest names each failure on a "FAIL file > test" line; Jest marks them with ●.
  const collect = (pattern: RegExp) =>
    [...text.matchAll(pattern)].map((m) => (m[1] as string).trim()).filter((name) => /[>›]/.test(name));
  const failLines = collect(/^\s*FAIL\s+(.+?)$/gm);
  const names = failLines.length > 0 ? failLines : collect(/^\s*[●×✕]\s+(.+?)(?:\s+\d+ms)?$/gm);
  const failures = [...new Set(names)].map((testName) => ({ testName, message: "failed", stackTrace: "" }));
  return { passed: count("passed"), failed: count("failed"), skipped: count("skipped") + count("todo"), failures };
}
