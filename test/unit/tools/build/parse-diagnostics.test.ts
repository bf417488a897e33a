import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  isEnvironmentFailure,
  parseDiagnostics,
  summarizeDiagnostics,
  unlocatedFailure,
} from "../../../../tools/build/parse-diagnostics.js";

const fixture = (name: string) => readFileSync(path.join(__dirname, "../../../fixtures/outputs", name), "utf8");

describe("parseDiagnostics on real compiler output", () => {
  it("reads tsc without --pretty", () => {
    expect(parseDiagnostics(fixture("tsc.txt"))).toEqual([
      {
        file: "src/bad.ts",
        line: 4,
        column: 7,
        code: "TS2322",
        message: "Type 'number' is not assignable to type 'string'.",
        severity: "error",
      },
      {
        file: "src/bad.ts",
        line: 5,
        column: 14,
        code: "TS2304",
        message: "Cannot find name 'missingName'.",
        severity: "error",
      },
    ]);
  });

  it("reads tsc --pretty with its colours", () => {
    expect(parseDiagnostics(fixture("tsc-pretty.txt")).map((d) => [d.file, d.line, d.column, d.code])).toEqual([
      ["src/bad.ts", 4, 7, "TS2322"],
      ["src/bad.ts", 5, 14, "TS2304"],
    ]);
  });

  it("reads gcc errors and warnings with their -W flags", () => {
    const summary = summarizeDiagnostics(parseDiagnostics(fixture("gcc.txt")));
    expect(summary.errorCount).toBe(1);
    expect(summary.errors[0]).toMatchObject({
      file: "bad.c",
      line: 4,
      column: 18,
      message: "expected ‘;’ before ‘return’",
    });
    expect(summary.warnings.map((w) => w.code)).toEqual([
      "-Wint-conversion",
      "-Wimplicit-function-declaration",
      "-Wunused-variable",
    ]);
  });

  it("reads cargo's long form, ignoring summary lines without a location", () => {
    expect(parseDiagnostics(fixture("cargo-build.txt"))).toEqual([
      {
        file: "src/main.rs",
        line: 4,
        column: 20,
        code: "E0425",
        message: "cannot find value `y` in this scope",
        severity: "error",
      },
      { file: "src/main.rs", line: 2, column: 18, code: "E0308", message: "mismatched types", severity: "error" },
    ]);
  });

  it("reads cargo's short form", () => {
    expect(parseDiagnostics(fixture("cargo-build-short.txt")).map((d) => `${d.line}:${d.code}`)).toEqual([
      "4:E0425",
      "2:E0308",
    ]);
  });

  it("reads cargo warnings", () => {
    expect(parseDiagnostics(fixture("cargo-warning.txt"))).toEqual([
      {
        file: "src/main.rs",
        line: 2,
        column: 9,
        code: null,
        message: "unused variable: `unused`",
        severity: "warning",
      },
    ]);
  });

  it("reads javac, taking the column from the caret line", () => {
    expect(parseDiagnostics(fixture("javac.txt"))).toEqual([
      {
        file: "java/src/Main.java",
        line: 3,
        column: 17,
        code: null,
        message: "incompatible types: String cannot be converted to int",
        severity: "error",
      },
      { file: "java/src/Main.java", line: 4, column: 9, code: null, message: "cannot find symbol", severity: "error" },
    ]);
  });

  it("reads a Python syntax error and a traceback", () => {
    expect(parseDiagnostics(fixture("python-py-compile.txt"))).toEqual([
      { file: "bad.py", line: 1, column: null, code: "SyntaxError", message: "invalid syntax", severity: "error" },
    ]);
    expect(parseDiagnostics(fixture("python-traceback.txt"))).toEqual([
      {
        file: "/tmp/cap/crash.py",
        line: 2,
        column: null,
        code: "ZeroDivisionError",
        message: "division by zero",
        severity: "error",
      },
    ]);
  });

  it("finds nothing in clean output", () => {
    expect(parseDiagnostics("Compiling...\nFinished in 0.2s\n")).toEqual([]);
  });
});

describe("parseDiagnostics on go output captured in the sandbox image", () => {
  it("reads go build errors", () => {
    expect(parseDiagnostics(fixture("go-build.txt"))).toEqual([
      { file: "./broken.go", line: 2, column: 28, code: null, message: "undefined: undefinedThing", severity: "error" },
      {
        file: "./broken.go",
        line: 3,
        column: 29,
        code: null,
        message: "cannot use 5 (untyped int constant) as string value in return statement",
        severity: "error",
      },
    ]);
  });

  it("reads go vet's prefixed lines", () => {
    expect(parseDiagnostics(fixture("go-vet.txt"))).toEqual([
      {
        file: "./broken.go",
        line: 2,
        column: 28,
        code: null,
        message: "undeclared name: undefinedThing",
        severity: "error",
      },
    ]);
  });
});

describe("parseDiagnostics on formats without a local capture", () => {
  // No Kotlin, Maven (its plugins need a registry this machine cannot reach) or .NET
  // toolchain runs here; these lines follow each tool's documented message format.
  it("reads Kotlin, Maven and .NET lines", () => {
    const output = [
      "e: file:///src/main/kotlin/App.kt:3:5 Unresolved reference: foo",
      "[ERROR] /src/main/java/App.java:[12,8] cannot find symbol",
      "Program.cs(10,17): error CS1002: ; expected [/src/App.csproj]",
    ].join("\n");
    expect(parseDiagnostics(output).map((d) => [d.file, d.line, d.column, d.code])).toEqual([
      ["/src/main/kotlin/App.kt", 3, 5, null],
      ["/src/main/java/App.java", 12, 8, null],
      ["Program.cs", 10, 17, "CS1002"],
    ]);
  });
});

describe("errors without a place", () => {
  // What the image's tsc 4.8 prints for a tsconfig with "types": ["node"] and no node_modules.
  const TS2688 =
    "error TS2688: Cannot find type definition file for 'node'.\n  The file is in the program because:\n    Entry point of type library 'node' specified in compilerOptions\n";

  it("are still errors: tsc's project-level messages are read with a null file and line", () => {
    expect(summarizeDiagnostics(parseDiagnostics(TS2688))).toMatchObject({
      errorCount: 1,
      errors: [
        {
          file: null,
          line: null,
          column: null,
          code: "TS2688",
          message: "Cannot find type definition file for 'node'.",
          severity: "error",
        },
      ],
    });
  });

  it("stand for a failed command whose output names none: its last line, or its exit code", () => {
    expect(unlocatedFailure("compiling...\nSegmentation fault\n", 139, false)).toEqual({
      file: null,
      line: null,
      column: null,
      code: null,
      message: "Segmentation fault",
      severity: "error",
    });
    expect(unlocatedFailure("bash: line 1: uv: command not found\n", 127, false)).toMatchObject({
      code: "command_not_found",
      message: "bash: line 1: uv: command not found",
    });
    expect(unlocatedFailure("", 2, false).message).toBe("the command failed with exit code 2 and printed nothing");
    expect(unlocatedFailure("partial", null, true)).toMatchObject({
      code: "timeout",
      message: "the command timed out and was killed",
    });
  });

  it("tell the sandbox's environment apart from the code: a missing program or missing type definitions", () => {
    expect(isEnvironmentFailure(127, [])).toBe(true);
    expect(isEnvironmentFailure(2, parseDiagnostics(TS2688))).toBe(true);
    expect(
      isEnvironmentFailure(2, parseDiagnostics(`${TS2688}src/a.ts(1,1): error TS2304: Cannot find name 'x'.\n`)),
    ).toBe(false);
    expect(
      isEnvironmentFailure(
        1,
        parseDiagnostics("src/a.ts(3,5): error TS2322: Type 'number' is not assignable to type 'string'.\n"),
      ),
    ).toBe(false);
  });
});
