import { describe, expect, it } from "vitest";
import { detectProject } from "../../../../tools/project/detect-project.js";
import { validationCommand } from "../../../../tools/build/validation-command.js";

function files(entries: Record<string, string>, programs?: readonly string[]) {
  return {
    has: (path: string) => path in entries || Object.keys(entries).some((entry) => entry.startsWith(`${path}/`)),
    read: (path: string) => entries[path],
    topLevel: [...new Set(Object.keys(entries).map((path) => path.split("/")[0] as string))],
    ...(programs === undefined ? {} : { hasProgram: (name: string) => programs.includes(name) }),
  };
}

describe("detectProject", () => {
  it("detects a TypeScript npm project with its scripts", () => {
    const info = detectProject(
      files({
        "package.json": JSON.stringify({ scripts: { build: "tsc", test: "vitest run" } }),
        "tsconfig.json": "{}",
        src: "",
      }),
    );
    expect(info).toEqual({
      language: "typescript",
      buildSystem: "npm",
      buildCommand: "npm run build",
      testCommand: "npm test",
      sourceRoots: ["src"],
    });
  });

  it("tells pnpm and yarn apart and ignores npm's placeholder test script", () => {
    expect(detectProject(files({ "package.json": "{}", "pnpm-lock.yaml": "" })).buildSystem).toBe("pnpm");
    const yarn = detectProject(
      files({
        "package.json": JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }),
        "yarn.lock": "",
      }),
    );
    expect(yarn).toMatchObject({
      buildSystem: "yarn",
      language: "javascript",
      testCommand: "node --test",
      buildCommand: null,
    });
  });

  it("detects Gradle (Kotlin DSL) with the wrapper, and Maven", () => {
    expect(detectProject(files({ "build.gradle.kts": "", gradlew: "", "src/main/java": "" }))).toMatchObject({
      language: "java",
      buildSystem: "gradle",
      testCommand: "./gradlew test",
      sourceRoots: ["src/main/java"],
    });
    expect(detectProject(files({ "pom.xml": "" }))).toMatchObject({
      buildSystem: "maven",
      testCommand: "mvn -q -B test",
    });
  });

  it("falls back to the image's python3 when the project's runner (uv, poetry, pdm) is not installed, and says so", () => {
    const uv = detectProject(
      files({ "pyproject.toml": "[project]\nname='x'", "uv.lock": "", "tests/test_x.py": "" }, ["python3", "git"]),
    );
    expect(uv).toMatchObject({ buildSystem: "uv", testCommand: "python3 -m pytest" });
    expect(uv.note).toMatch(/^uv is not in the sandbox image, so tests run with its python3 \(python3 -m pytest\)/);
    expect(detectProject(files({ "pyproject.toml": "[tool.poetry]\nname='x'" }, []))).toMatchObject({
      buildSystem: "poetry",
      testCommand: "python3 -m pytest",
    });
    expect(detectProject(files({ "pyproject.toml": "[project]", "pdm.lock": "" }, []))).toMatchObject({
      buildSystem: "pdm",
      testCommand: "python3 -m pytest",
    });
    // With the runner present, it is used, and nothing needs saying.
    const present = detectProject(files({ "pyproject.toml": "[project]", "uv.lock": "" }, ["uv"]));
    expect(present).toMatchObject({ testCommand: "uv run pytest" });
    expect(present.note).toBeUndefined();
  });

  it("puts src/ on the import path for a src layout, which nothing installs in the sandbox", () => {
    const info = detectProject(
      files(
        {
          "pyproject.toml": "[project]",
          "uv.lock": "",
          "src/itsdangerous/__init__.py": "",
          "tests/test_signer.py": "",
        },
        [],
      ),
    );
    expect(info.testCommand).toBe("PYTHONPATH=src python3 -m pytest");
    expect(detectProject(files({ "requirements.txt": "", "src/app/__init__.py": "" })).testCommand).toBe(
      "PYTHONPATH=src python3 -m pytest",
    );
    // A src that is itself the package is not a src layout.
    expect(detectProject(files({ "requirements.txt": "", "src/__init__.py": "" })).testCommand).toBe(
      "python3 -m pytest",
    );
  });

  it("detects a plain directory of test_*.py files with no configuration as pytest", () => {
    expect(detectProject(files({ "test_math.py": "", "mathlib.py": "" }))).toMatchObject({
      language: "python",
      buildSystem: "pip",
      testCommand: "python3 -m pytest",
      sourceRoots: ["."],
    });
    expect(detectProject(files({ "calc_test.py": "" })).testCommand).toBe("python3 -m pytest");
    expect(detectProject(files({ "notes.py": "" })).language).toBe("unknown");
  });

  it("detects Python with pip, Poetry and uv", () => {
    expect(detectProject(files({ "requirements.txt": "" }))).toMatchObject({
      language: "python",
      buildSystem: "pip",
      testCommand: "python3 -m pytest",
    });
    expect(detectProject(files({ "pyproject.toml": "[tool.poetry]\nname='x'" }))).toMatchObject({
      buildSystem: "poetry",
      testCommand: "poetry run pytest",
    });
    expect(detectProject(files({ "pyproject.toml": "[project]", "uv.lock": "" }))).toMatchObject({ buildSystem: "uv" });
  });

  it("detects Go, Cargo and .NET", () => {
    expect(detectProject(files({ "go.mod": "module x" }))).toMatchObject({
      language: "go",
      testCommand: "go test ./...",
    });
    expect(detectProject(files({ "Cargo.toml": "" }))).toMatchObject({ language: "rust", buildSystem: "cargo" });
    expect(detectProject(files({ "App.sln": "" }))).toMatchObject({
      language: "csharp",
      buildSystem: "dotnet",
      testCommand: "dotnet test",
    });
  });

  it("says unknown when nothing matches", () => {
    expect(detectProject(files({ "notes.txt": "" }))).toEqual({
      language: "unknown",
      buildSystem: "unknown",
      buildCommand: null,
      testCommand: null,
      sourceRoots: [],
    });
  });
});

describe("validationCommand's type definitions", () => {
  const ts = detectProject(files({ "package.json": "{}", "tsconfig.json": "{}" }));
  const hasTsconfig = (p: string) => p === "tsconfig.json";

  it("points tsc at the image's @types when the project brings none, with only node's unless the tsconfig names its own", () => {
    expect(
      validationCommand(ts, "typescript", hasTsconfig, {
        roots: "/usr/share/nodejs/@types",
        tsconfigNamesTypes: false,
      }),
    ).toMatch(/--noEmit -p \. --pretty false --typeRoots \/usr\/share\/nodejs\/@types --types node$/);
    expect(
      validationCommand(ts, "typescript", hasTsconfig, { roots: "/usr/share/nodejs/@types", tsconfigNamesTypes: true }),
    ).toMatch(/--pretty false --typeRoots \/usr\/share\/nodejs\/@types$/);
    expect(validationCommand(ts, "typescript", hasTsconfig)).toMatch(/--pretty false$/);
  });
});

describe("validationCommand", () => {
  const ts = detectProject(files({ "package.json": "{}", "tsconfig.json": "{}" }));
  it("type-checks TypeScript with the project's own tsc when present", () => {
    expect(validationCommand(ts, "typescript", (p) => p === "tsconfig.json")).toMatch(
      /node_modules\/\.bin\/tsc.*--noEmit -p \./,
    );
  });
  it("picks the compiler for each language", () => {
    expect(validationCommand(ts, "go", () => false)).toBe("go build ./... && go vet ./...");
    expect(validationCommand(ts, "rust", () => false)).toMatch(/^cargo check/);
    expect(validationCommand(ts, "python", () => false)).toMatch(/compile\(/);
    expect(validationCommand(detectProject(files({ "pom.xml": "" })), "java", () => false)).toBe(
      "mvn -q -B test-compile",
    );
  });
});
