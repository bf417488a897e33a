import { describe, expect, it } from "vitest";
import { detectProject } from "../../../../tools/project/detect-project.js";
import { validationCommand } from "../../../../tools/build/validation-command.js";

function files(entries: Record<string, string>) {
  return {
    has: (path: string) => path in entries,
    read: (path: string) => entries[path],
    topLevel: Object.keys(entries).filter((path) => !path.includes("/")),
  };
}

describe("detectProject", () => {
  it("detects a TypeScript npm project with its scripts", () => {
    const info = detectProject(files({ "package.json": JSON.stringify({ scripts: { build: "tsc", test: "vitest run" } }), "tsconfig.json": "{}", src: "" }));
    expect(info).toEqual({ language: "typescript", buildSystem: "npm", buildCommand: "npm run build", testCommand: "npm test", sourceRoots: ["src"] });
  });

  it("tells pnpm and yarn apart and ignores npm's placeholder test script", () => {
    expect(detectProject(files({ "package.json": "{}", "pnpm-lock.yaml": "" })).buildSystem).toBe("pnpm");
    const yarn = detectProject(files({ "package.json": JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }), "yarn.lock": "" }));
    expect(yarn).toMatchObject({ buildSystem: "yarn", language: "javascript", testCommand: "node --test", buildCommand: null });
  });

  it("detects Gradle (Kotlin DSL) with the wrapper, and Maven", () => {
    expect(detectProject(files({ "build.gradle.kts": "", gradlew: "", "src/main/java": "" }))).toMatchObject({ language: "java", buildSystem: "gradle", testCommand: "./gradlew test", sourceRoots: ["src/main/java"] });
    expect(detectProject(files({ "pom.xml": "" }))).toMatchObject({ buildSystem: "maven", testCommand: "mvn -q -B test" });
  });

  it("detects Python with pip, Poetry and uv", () => {
    expect(detectProject(files({ "requirements.txt": "" }))).toMatchObject({ language: "python", buildSystem: "pip", testCommand: "python3 -m pytest" });
    expect(detectProject(files({ "pyproject.toml": "[tool.poetry]\nname='x'" }))).toMatchObject({ buildSystem: "poetry", testCommand: "poetry run pytest" });
    expect(detectProject(files({ "pyproject.toml": "[project]", "uv.lock": "" }))).toMatchObject({ buildSystem: "uv" });
  });

  it("detects Go, Cargo and .NET", () => {
    expect(detectProject(files({ "go.mod": "module x" }))).toMatchObject({ language: "go", testCommand: "go test ./..." });
    expect(detectProject(files({ "Cargo.toml": "" }))).toMatchObject({ language: "rust", buildSystem: "cargo" });
    expect(detectProject(files({ "App.sln": "" }))).toMatchObject({ language: "csharp", buildSystem: "dotnet", testCommand: "dotnet test" });
  });

  it("says unknown when nothing matches", () => {
    expect(detectProject(files({ "notes.txt": "" }))).toEqual({ language: "unknown", buildSystem: "unknown", buildCommand: null, testCommand: null, sourceRoots: [] });
  });
});

describe("validationCommand", () => {
  const ts = detectProject(files({ "package.json": "{}", "tsconfig.json": "{}" }));
  it("type-checks TypeScript with the project's own tsc when present", () => {
    expect(validationCommand(ts, "typescript", (p) => p === "tsconfig.json")).toMatch(/node_modules\/\.bin\/tsc.*--noEmit -p \./);
  });
  it("picks the compiler for each language", () => {
    expect(validationCommand(ts, "go", () => false)).toBe("go build ./... && go vet ./...");
    expect(validationCommand(ts, "rust", () => false)).toMatch(/^cargo check/);
    expect(validationCommand(ts, "python", () => false)).toMatch(/compile\(/);
    expect(validationCommand(detectProject(files({ "pom.xml": "" })), "java", () => false)).toBe("mvn -q -B test-compile");
  });
});
