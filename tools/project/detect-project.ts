/** What project_info answers. */
export interface ProjectInfo {
  language: "typescript" | "javascript" | "python" | "java" | "kotlin" | "go" | "rust" | "csharp" | "unknown";
  buildSystem:
    | "npm"
    | "pnpm"
    | "yarn"
    | "gradle"
    | "maven"
    | "pip"
    | "poetry"
    | "uv"
    | "pdm"
    | "go"
    | "cargo"
    | "dotnet"
    | "unknown";
  buildCommand: string | null;
  testCommand: string | null;
  sourceRoots: string[];
  /** Why a command differs from the build system's usual one (e.g. its tool is not in the image). */
  note?: string;
}

/** The facts detection needs: which paths exist and the text of a few manifest files. */
export interface ProjectFiles {
  has(relativePath: string): boolean;
  read(relativePath: string): string | undefined;
  /** Top-level entry names, for suffix checks like *.csproj. */
  readonly topLevel: readonly string[];
  /** Whether a program is on PATH; every program is taken to be when absent. */
  hasProgram?(name: string): boolean;
}

/** Python test files pytest collects by default. */
const PYTEST_FILE = /^(test_.+|.+_test)\.py$/;

const NPM_DEFAULT_TEST = /no test specified/;

/** Detects language, build system, build/test commands and source roots from the files present. Pure. */
export function detectProject(files: ProjectFiles): ProjectInfo {
  const roots = (...candidates: string[]) => candidates.filter((candidate) => files.has(candidate));

  if (
    files.has("build.gradle.kts") ||
    files.has("build.gradle") ||
    files.has("settings.gradle.kts") ||
    files.has("settings.gradle")
  ) {
    const gradle = files.has("gradlew") ? "./gradlew" : "gradle";
    const kotlin = files.has("src/main/kotlin");
    return {
      language: kotlin ? "kotlin" : "java",
      buildSystem: "gradle",
      buildCommand: `${gradle} build -x test`,
      testCommand: `${gradle} test`,
      sourceRoots: roots("src/main/java", "src/main/kotlin", "src/test/java", "src/test/kotlin"),
    };
  }
  if (files.has("pom.xml")) {
    return {
      language: files.has("src/main/kotlin") ? "kotlin" : "java",
      buildSystem: "maven",
      buildCommand: "mvn -q -B compile",
      testCommand: "mvn -q -B test",
      sourceRoots: roots("src/main/java", "src/main/kotlin", "src/test/java", "src/test/kotlin"),
    };
  }
  if (files.has("Cargo.toml")) {
    return {
      language: "rust",
      buildSystem: "cargo",
      buildCommand: "cargo build",
      testCommand: "cargo test",
      sourceRoots: roots("src", "tests", "benches", "examples"),
    };
  }
  if (files.has("go.mod")) {
    return {
      language: "go",
      buildSystem: "go",
      buildCommand: "go build ./...",
      testCommand: "go test ./...",
      sourceRoots: roots("cmd", "internal", "pkg").concat("."),
    };
  }
  const dotnet = files.topLevel.find((name) => /\.(sln|csproj|fsproj)$/.test(name));
  if (dotnet !== undefined) {
    return {
      language: "csharp",
      buildSystem: "dotnet",
      buildCommand: "dotnet build",
      testCommand: "dotnet test",
      sourceRoots: roots("src", "tests", "test"),
    };
  }
  const packageJson = files.read("package.json");
  if (packageJson !== undefined) return detectNode(files, packageJson, roots);
  const pytestFiles = files.topLevel.some((name) => PYTEST_FILE.test(name));
  if (
    files.has("pyproject.toml") ||
    files.has("requirements.txt") ||
    files.has("setup.py") ||
    files.has("setup.cfg") ||
    pytestFiles
  )
    return detectPython(files, roots);
  return { language: "unknown", buildSystem: "unknown", buildCommand: null, testCommand: null, sourceRoots: [] };
}

function detectNode(
  files: ProjectFiles,
  packageJson: string,
  roots: (...candidates: string[]) => string[],
): ProjectInfo {
  let manifest: {
    scripts?: Record<string, string>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  } = {};
  try {
    manifest = JSON.parse(packageJson) as typeof manifest;
  } catch {
    // A broken package.json still says "this is a Node project".
  }
  const buildSystem = files.has("pnpm-lock.yaml") ? "pnpm" : files.has("yarn.lock") ? "yarn" : "npm";
  const typescript =
    files.has("tsconfig.json") || "typescript" in { ...manifest.dependencies, ...manifest.devDependencies };
  const scripts = manifest.scripts ?? {};
  const run = (script: string) => (buildSystem === "npm" ? `npm run ${script}` : `${buildSystem} ${script}`);
  const buildCommand = scripts.build !== undefined ? run("build") : typescript ? "tsc --noEmit" : null;
  const testCommand =
    scripts.test !== undefined && !NPM_DEFAULT_TEST.test(scripts.test) ? `${buildSystem} test` : "node --test";
  return {
    language: typescript ? "typescript" : "javascript",
    buildSystem,
    buildCommand,
    testCommand,
    sourceRoots: roots("src", "lib", "test", "tests", "app"),
  };
}

/**
 * Python: pytest through the project's own runner (poetry, uv, pdm) when the image has it,
 * else the image's python3, with src/ on the import path for a src layout (nothing is
 * installed into the sandbox, so the package is only importable from its source).
 */
function detectPython(files: ProjectFiles, roots: (...candidates: string[]) => string[]): ProjectInfo {
  const pyproject = files.read("pyproject.toml") ?? "";
  const buildSystem: ProjectInfo["buildSystem"] =
    /\[tool\.poetry\]/.test(pyproject) || files.has("poetry.lock")
      ? "poetry"
      : files.has("uv.lock") || /\[tool\.uv\]/.test(pyproject)
        ? "uv"
        : files.has("pdm.lock") || /\[tool\.pdm\]/.test(pyproject)
          ? "pdm"
          : "pip";
  const srcLayout = files.has("src") && !files.has("src/__init__.py");
  const plain = `${srcLayout ? "PYTHONPATH=src " : ""}python3 -m pytest`;
  const runnerMissing = buildSystem !== "pip" && files.hasProgram?.(buildSystem) === false;
  const testCommand = buildSystem === "pip" || runnerMissing ? plain : `${buildSystem} run pytest`;
  return {
    language: "python",
    buildSystem,
    buildCommand: "python3 -m compileall -q .",
    testCommand,
    sourceRoots: roots("src", "tests", "test").concat(files.has("src") ? [] : ["."]),
    ...(runnerMissing
      ? {
          note: `${buildSystem} is not in the sandbox image, so tests run with its python3 (${plain}); extend the image to use ${buildSystem} (see the README).`,
        }
      : {}),
  };
}
