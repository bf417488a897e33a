import type { ProjectInfo } from "../project/detect-project.js";

/** Languages code_validate knows how to check. */
export const VALIDATION_LANGUAGES = [
  "typescript",
  "javascript",
  "python",
  "go",
  "rust",
  "java",
  "kotlin",
  "csharp",
] as const;

// Compiles every non-ignored .py file without writing bytecode, printing syntax errors in
// the `file:line:col: error: Kind: message` form parseDiagnostics reads.
const PYTHON_CHECK = [
  "git ls-files -z -co --exclude-standard -- '*.py' | python3 -c",
  `'import sys
bad = 0
for name in filter(None, sys.stdin.buffer.read().decode().split("\\0")):
    try:
        compile(open(name, "rb").read(), name, "exec", dont_inherit=True)
    except SyntaxError as e:
        bad += 1
        print(f"{name}:{e.lineno or 1}:{e.offset or 1}: error: {type(e).__name__}: {e.msg}")
sys.exit(1 if bad else 0)'`,
].join(" ");

// node --check on every non-ignored JavaScript file, reported in the same form.
const JAVASCRIPT_CHECK = [
  "status=0; while IFS= read -r -d '' f; do",
  'out=$(node --check "$f" 2>&1) || { status=1; line=$(printf "%s\\n" "$out" | head -1 | sed -E "s/.*:([0-9]+)$/\\1/");',
  'msg=$(printf "%s\\n" "$out" | grep -E "^[A-Za-z]*Error" | head -1); echo "$f:${line:-1}:1: error: $msg"; };',
  "done < <(git ls-files -z -co --exclude-standard -- '*.js' '*.mjs' '*.cjs'); exit $status",
].join(" ");

/** Type definitions the image has, for a project without node_modules/@types. */
export interface ImageTypes {
  readonly roots: string;
  /** Whether the project's tsconfig names its `types`; if not, only node's are taken (the image has hundreds). */
  readonly tsconfigNamesTypes: boolean;
}

function typeFlags(imageTypes: ImageTypes | undefined): string {
  if (imageTypes === undefined) return "";
  return ` --typeRoots ${imageTypes.roots}${imageTypes.tsconfigNamesTypes ? "" : " --types node"}`;
}

const LOCAL_TSC = '"$( [ -x node_modules/.bin/tsc ] && echo node_modules/.bin/tsc || echo tsc )"';

/**
 * The command that compiles or type-checks a project without running it, for the given
 * language (default: the detected one); `imageTypes` says where tsc finds type definitions
 * when the project brings none. Null when nothing fits. Pure.
 */
export function validationCommand(
  project: ProjectInfo,
  language: string,
  hasFile: (path: string) => boolean,
  imageTypes?: ImageTypes,
): string | null {
  switch (language) {
    case "typescript":
      return hasFile("tsconfig.json")
        ? `${LOCAL_TSC} --noEmit -p . --pretty false${typeFlags(imageTypes)}`
        : project.buildCommand;
    case "javascript":
      return JAVASCRIPT_CHECK;
    case "python":
      return PYTHON_CHECK;
    case "go":
      return "go build ./... && go vet ./...";
    case "rust":
      return "cargo check --all-targets --message-format=short";
    case "java":
    case "kotlin":
      if (project.buildSystem === "maven") return "mvn -q -B test-compile";
      return `${hasFile("gradlew") ? "./gradlew" : "gradle"} -q classes testClasses`;
    case "csharp":
      return "dotnet build -nologo";
    default:
      return project.buildCommand;
  }
}
