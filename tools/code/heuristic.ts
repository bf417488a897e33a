import path from "node:path";
import { runProcess } from "../shell/run-process.js";
import { ToolInputError } from "../tool-result.js";
import type { CodeLocation } from "./ts-operations.js";

const TIMEOUT_MS = 60_000;
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;

/** Declaration patterns (ripgrep syntax) per language; NAME is replaced by the symbol. */
const DEFINITIONS: Record<string, { globs: string[]; patterns: string[] }> = {
  python: {
    globs: ["*.py", "*.pyi"],
    patterns: ["^\\s*(async\\s+)?def\\s+NAME\\b", "^\\s*class\\s+NAME\\b", "^NAME\\s*(:[^=]*)?="],
  },
  go: {
    globs: ["*.go"],
    patterns: ["^func\\s+(\\([^)]*\\)\\s*)?NAME\\b", "^\\s*type\\s+NAME\\b", "^\\s*(var|const)\\s+NAME\\b"],
  },
  rust: {
    globs: ["*.rs"],
    patterns: [
      "\\bfn\\s+NAME\\b",
      "\\b(struct|enum|trait|type|mod|union)\\s+NAME\\b",
      "\\b(const|static)\\s+NAME\\b",
      "macro_rules!\\s*NAME\\b",
    ],
  },
  java: {
    globs: ["*.java", "*.kt", "*.kts", "*.scala", "*.cs"],
    patterns: [
      "\\b(class|interface|enum|record|object|struct)\\s+NAME\\b",
      "\\bfun\\s+NAME\\b",
      "^\\s*(public|private|protected|internal|static|final|override|abstract|async|virtual|\\s)*[\\w<>\\[\\],.?]+\\s+NAME\\s*\\(",
    ],
  },
  c: {
    globs: ["*.c", "*.h", "*.cc", "*.cpp", "*.hpp", "*.cxx"],
    patterns: [
      "^[\\w\\s\\*&:<>,]+\\bNAME\\s*\\([^;]*$",
      "\\b(struct|class|enum|union)\\s+NAME\\b",
      "#define\\s+NAME\\b",
      "typedef\\b.*\\bNAME\\s*;",
    ],
  },
  ruby: { globs: ["*.rb"], patterns: ["^\\s*def\\s+(self\\.)?NAME\\b", "^\\s*(class|module)\\s+NAME\\b"] },
  php: { globs: ["*.php"], patterns: ["\\bfunction\\s+NAME\\b", "\\b(class|interface|trait|enum)\\s+NAME\\b"] },
  shell: { globs: ["*.sh", "*.bash"], patterns: ["^\\s*(function\\s+)?NAME\\s*\\(\\)", "^\\s*function\\s+NAME\\b"] },
  javascript: {
    globs: ["*.js", "*.jsx", "*.mjs", "*.cjs", "*.ts", "*.tsx", "*.mts", "*.cts"],
    patterns: ["\\b(function\\*?|class|interface|type|enum)\\s+NAME\\b", "\\b(const|let|var)\\s+NAME\\b"],
  },
};

const BY_EXTENSION: Record<string, string> = {};
for (const [language, { globs }] of Object.entries(DEFINITIONS))
  for (const glob of globs) BY_EXTENSION[glob.slice(1)] = language;

/** The language a file is in, by extension (undefined when unknown). */
export function languageOf(file: string): string | undefined {
  return BY_EXTENSION[path.extname(file)];
}

/** The symbol under a 1-based line and column of a line's text. */
export function wordAt(text: string, column: number): string | undefined {
  const index = column - 1;
  const word = /[A-Za-z_$][\w$]*/g;
  for (const match of text.matchAll(word))
    if (match.index! <= index && index < match.index! + match[0].length) return match[0];
  return undefined;
}

async function ripgrep(root: string, args: string[]): Promise<CodeLocation[]> {
  const run = await runProcess({
    command: [
      "rg",
      "--with-filename",
      "--line-number",
      "--column",
      "--no-heading",
      "--color",
      "never",
      "--hidden",
      "--glob",
      "!.git",
      "--max-columns",
      "400",
      ...args,
    ],
    cwd: root,
    timeoutMs: TIMEOUT_MS,
    maxOutputBytes: MAX_OUTPUT_BYTES,
  });
  if (run.exitCode !== 0 && run.exitCode !== 1)
    throw new Error(`ripgrep failed: ${run.stderr.trim() || run.spawnError}`);
  const out: CodeLocation[] = [];
  for (const line of run.stdout.split("\n")) {
    const match = /^(.+?):(\d+):(\d+):(.*)$/.exec(line);
    if (match)
      out.push({
        path: match[1]!.replace(/^\.\//, ""),
        line: Number(match[2]),
        column: Number(match[3]),
        text: match[4]!.trim().slice(0, 240),
      });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
}

const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Declarations of `name`, found with each language's declaration patterns. */
export async function heuristicDefinitions(
  root: string,
  name: string,
  language: string | undefined,
): Promise<CodeLocation[]> {
  const languages = language !== undefined && DEFINITIONS[language] ? [language] : Object.keys(DEFINITIONS);
  const results: CodeLocation[] = [];
  for (const each of languages) {
    const { globs, patterns } = DEFINITIONS[each]!;
    const args = [
      ...globs.flatMap((glob) => ["--glob", glob]),
      ...patterns.flatMap((pattern) => ["--regexp", pattern.replaceAll("NAME", escape(name))]),
      ".",
    ];
    for (const location of await ripgrep(root, args))
      results.push({ ...location, kind: "declaration", isDefinition: true });
  }
  return results;
}

/** Every whole-word occurrence of `name` in files of the language (declarations marked). */
export async function heuristicReferences(
  root: string,
  name: string,
  language: string | undefined,
): Promise<CodeLocation[]> {
  const globs = language !== undefined && DEFINITIONS[language] ? DEFINITIONS[language]!.globs : [];
  const definitions = new Set(
    (await heuristicDefinitions(root, name, language)).map((location) => `${location.path}:${location.line}`),
  );
  const all = await ripgrep(root, [
    ...globs.flatMap((glob) => ["--glob", glob]),
    "--word-regexp",
    "--fixed-strings",
    "--regexp",
    name,
    ".",
  ]);
  return all.map((location) => ({ ...location, isDefinition: definitions.has(`${location.path}:${location.line}`) }));
}

/** Top-level-looking declarations of a file, by the language's patterns. */
export async function heuristicSymbols(
  root: string,
  relative: string,
  language: string | undefined,
): Promise<CodeLocation[]> {
  if (language === undefined)
    throw new ToolInputError(
      `No symbol patterns for ${path.extname(relative) || "this kind of file"}; use grep instead.`,
    );
  const { patterns } = DEFINITIONS[language]!;
  const names = patterns.map((pattern) => pattern.replaceAll("NAME", "([A-Za-z_$][\\w$]*)"));
  const found = await ripgrep(root, [...names.flatMap((pattern) => ["--regexp", pattern]), "--", relative]);
  return found.map((location) => {
    for (const pattern of names) {
      const name = new RegExp(pattern.replace(/\(\?[^)]*\)/g, ""))
        .exec(location.text)
        ?.slice(1)
        .reverse()
        .find(
          (group) =>
            group !== undefined &&
            /^[A-Za-z_$][\w$]*$/.test(group) &&
            !/^(def|class|fn|func|type|struct|enum|trait|const|let|var|static|function|interface|module|self)$/.test(
              group,
            ),
        );
      if (name) return { ...location, path: relative, name, kind: "declaration" };
    }
    return { ...location, path: relative, kind: "declaration" };
  });
}
