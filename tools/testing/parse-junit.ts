import { firstLine, locateInTrace, type TestError, type TestSummary } from "./test-summary.js";

const TESTCASE = /<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g;
const ATTRIBUTE = /([\w:.-]+)\s*=\s*("([^"]*)"|'([^']*)')/g;
const FAILURE = /<(failure|error)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/;
const SKIPPED = /<skipped\b/;

/** Decodes XML entities and CDATA sections. */
export function decodeXml(text: string): string {
  return text
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, body: string) => body)
    .replace(/&#x([0-9a-fA-F]+);/g, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

function attributes(source: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of source.matchAll(ATTRIBUTE)) out[match[1] as string] = decodeXml(match[3] ?? match[4] ?? "");
  return out;
}

/**
 * Reads a JUnit XML report (Surefire, Gradle, pytest --junitxml, Vitest's junit reporter):
 * every `<testcase>` counts once as passed, failed (failure or error) or skipped, with the
 * file and line its trace points at; pytest's collection errors (a module that could not be
 * imported) are errors of the run, not failed tests. Pure.
 */
export function parseJUnitXml(xml: string): TestSummary {
  const summary: TestSummary = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const errors: TestError[] = [];
  for (const match of xml.matchAll(TESTCASE)) {
    const attrs = attributes(match[1] ?? "");
    const body = match[2] ?? "";
    const failure = FAILURE.exec(body);
    const name = [attrs.classname, attrs.name].filter(Boolean).join(" > ") || "(unnamed test)";
    if (failure) {
      const failureAttrs = attributes(failure[2] ?? "");
      const detail = decodeXml(failure[3] ?? "").trim();
      const where = locateInTrace(detail);
      if (failure[1] === "error" && (failureAttrs.message === "collection failure" || attrs.classname === "")) {
        const raised = detail
          .split("\n")
          .filter((line) => line.startsWith("E "))
          .at(-1)
          ?.replace(/^E\s+/, "");
        errors.push({
          file: where?.file ?? null,
          line: where?.line ?? null,
          message: raised ?? (firstLine(detail) || "the module could not be collected"),
          stackTrace: detail,
        });
        continue;
      }
      summary.failed += 1;
      summary.failures.push({
        testName: name,
        message: failureAttrs.message?.trim() || firstLine(detail) || (failure[1] as string),
        stackTrace: detail,
        ...(where === undefined ? {} : { file: where.file, line: where.line }),
      });
    } else if (SKIPPED.test(body)) summary.skipped += 1;
    else summary.passed += 1;
  }
  return errors.length === 0 ? summary : { ...summary, errors };
}
