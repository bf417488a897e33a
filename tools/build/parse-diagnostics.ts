/** One compiler message, in a shape common to every toolchain; file and line are null when the tool named no place. */
export interface Diagnostic {
  file: string | null;
  line: number | null;
  column: number | null;
  code: string | null;
  message: string;
  severity: "error" | "warning";
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/** tsc (`--pretty false`) and .NET: `file(line,col): error CODE: message [project]`. */
const PAREN_STYLE = /^(.+?)\((\d+),(\d+)\): (error|warning) ([A-Z]+\d+): (.*?)(?: \[[^\]]+\])?$/;
/** tsc about the project rather than a file (a missing type definition, a bad option): `error TS2688: message`. */
const TSC_GLOBAL = /^(error|warning) (TS\d+): (.*)$/;
/** tsc `--pretty`: `file:line:col - error TS1234: message`. */
const TSC_PRETTY = /^(.+?):(\d+):(\d+) - (error|warning) (TS\d+): (.*)$/;
/** gcc, clang, cargo `--message-format=short`, and workcell's own checkers: `file:line:col: error[CODE]: message [-Wflag]`. */
const COLON_STYLE = /^(.+?):(\d+):(\d+): (fatal error|error|warning)(?:\[([A-Z]+\d+)\])?: (.*?)(?: \[(-W[^\]]+)\])?$/;
/** rustc/cargo long form: a header line, then ` --> file:line:col`. */
const RUST_HEADER = /^(error|warning)(?:\[(E\d+)\])?: (.*)$/;
const RUST_LOCATION = /^\s*--> (.+?):(\d+):(\d+)$/;
/** go build / go vet: `./file.go:line:col: message`, vet with a `vet: ` prefix (always an error). */
const GO_STYLE = /^(?:vet: )?(\S+\.go):(\d+)(?::(\d+))?: (.*)$/;
/** javac and Gradle's javac: `File.java:line: error: message`, column from the caret line two lines below. */
const JAVAC_STYLE = /^(.+?\.java):(\d+): (error|warning): (.*)$/;
/** Kotlin: `e: file:///path/File.kt:3:5 message`. */
const KOTLIN_STYLE = /^(e|w): (?:file:\/\/)?(.+?\.kts?):(\d+):(\d+) (.*)$/;
/** Maven: `[ERROR] /path/File.java:[3,5] message`. */
const MAVEN_STYLE = /^\[(ERROR|WARNING)\] (.+?):\[(\d+),(\d+)\] (.*)$/;
/** Python: `  File "x.py", line 3` then, at the end of the block, `SomeError: message`. */
const PY_FILE = /^\s*File "(.+?)", line (\d+)/;
const PY_EXCEPTION = /^([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt))(?:: (.*))?$/;

/**
 * Extracts errors and warnings from compiler or interpreter output of tsc, gcc/clang,
 * rustc/cargo, go, javac/Gradle/Maven, Kotlin, .NET and Python tracebacks. Pure; lines it
 * does not recognise are ignored, duplicates collapse into one.
 */
export function parseDiagnostics(output: string): Diagnostic[] {
  const lines = output.replace(ANSI, "").replace(/\r\n/g, "\n").split("\n");
  const found: Diagnostic[] = [];
  let pythonFile: { file: string; line: number } | undefined;

  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    let match: RegExpExecArray | null;
    if ((match = PAREN_STYLE.exec(line)) || (match = TSC_PRETTY.exec(line))) {
      found.push(make(match[1], match[2], match[3], match[5], match[6], match[4]));
    } else if ((match = TSC_GLOBAL.exec(line))) {
      found.push({
        file: null,
        line: null,
        column: null,
        code: match[2] as string,
        message: (match[3] as string).trim(),
        severity: match[1] === "warning" ? "warning" : "error",
      });
    } else if ((match = COLON_STYLE.exec(line))) {
      found.push(make(match[1], match[2], match[3], match[5] ?? match[7] ?? null, match[6], match[4]));
    } else if ((match = RUST_HEADER.exec(line))) {
      const location = RUST_LOCATION.exec(lines[i + 1] ?? "");
      if (location) found.push(make(location[1], location[2], location[3], match[2] ?? null, match[3], match[1]));
    } else if ((match = JAVAC_STYLE.exec(line))) {
      const caret = (lines[i + 2] ?? "").indexOf("^");
      found.push(make(match[1], match[2], caret >= 0 ? String(caret + 1) : null, null, match[4], match[3]));
    } else if ((match = KOTLIN_STYLE.exec(line))) {
      found.push(make(match[2], match[3], match[4], null, match[5], match[1] === "e" ? "error" : "warning"));
    } else if ((match = MAVEN_STYLE.exec(line))) {
      found.push(make(match[2], match[3], match[4], null, match[5], match[1] === "ERROR" ? "error" : "warning"));
    } else if ((match = GO_STYLE.exec(line))) {
      found.push(make(match[1], match[2], match[3] ?? null, null, match[4], "error"));
    } else if ((match = PY_FILE.exec(line))) {
      pythonFile = { file: match[1] as string, line: Number(match[2]) };
    } else if (pythonFile && (match = PY_EXCEPTION.exec(line))) {
      const name = match[1] as string;
      found.push({
        file: pythonFile.file,
        line: pythonFile.line,
        column: null,
        code: name,
        message: match[2] ?? name,
        severity: /Warning$/.test(name) ? "warning" : "error",
      });
      pythonFile = undefined;
    }
  }
  return dedupe(found);
}

function make(
  file: string | undefined,
  line: string | undefined,
  column: string | undefined | null,
  code: string | null | undefined,
  message: string | undefined,
  severity: string | undefined,
): Diagnostic {
  return {
    file: (file ?? "").trim(),
    line: Number(line),
    column: column === null || column === undefined ? null : Number(column),
    code: code ?? null,
    message: (message ?? "").trim(),
    severity: severity === "warning" ? "warning" : "error",
  };
}

function dedupe(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.severity}|${d.file}|${d.line}|${d.column}|${d.code}|${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The error a failed command stands for when its output named none: its last line of
 * output (or its exit code), without a place, so a failure never reads as zero errors. Pure.
 */
export function unlocatedFailure(output: string, exitCode: number | null, timedOut: boolean): Diagnostic {
  const last = output
    .replace(ANSI, "")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1);
  const code = exitCode === 127 ? "command_not_found" : timedOut ? "timeout" : null;
  const message = timedOut
    ? "the command timed out and was killed"
    : (last ?? `the command failed with exit code ${exitCode ?? "none"} and printed nothing`);
  return { file: null, line: null, column: null, code, message, severity: "error" };
}

/**
 * Whether a failure lies in the sandbox's environment rather than in the code: the command
 * or its compiler is missing (exit 126/127), or tsc cannot find type definitions or its
 * standard library. Such failures say nothing about the agent's work. Pure.
 */
export function isEnvironmentFailure(exitCode: number | null, errors: readonly Diagnostic[]): boolean {
  if (exitCode === 126 || exitCode === 127) return true;
  return (
    errors.length > 0 &&
    errors.every(
      (error) =>
        error.code === "TS2688" ||
        error.code === "TS2318" ||
        error.code === "TS6053" ||
        error.code === "command_not_found",
    )
  );
}

/** Splits diagnostics into errors and warnings. */
export function summarizeDiagnostics(diagnostics: readonly Diagnostic[]) {
  const errors = diagnostics.filter((d) => d.severity === "error");
  const warnings = diagnostics.filter((d) => d.severity === "warning");
  return { errorCount: errors.length, warningCount: warnings.length, errors, warnings };
}
