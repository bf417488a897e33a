import { z } from "zod";
import { beneathRoot, writeFileBeneath } from "../fs/beneath.js";
import { pathField, readResolvedText } from "../fs/read-tools.js";
import type { AccessControl } from "../permissions/access-control.js";
import type { ToolRegistry } from "../registry.js";
import { textResult, ToolInputError } from "../tool-result.js";

const CONTEXT_LINES = 3;

/** The edit a `code_edit` call asks for. */
export type CodeEdit =
  | { command: "replace_lines"; startLine: number; endLine: number; content: string }
  | { command: "find_replace"; find: string; content: string; regex?: boolean | undefined; all?: boolean | undefined }
  | { command: "write"; content: string };

/** The new text and the 1-based line range that now holds the edited region. */
export interface CodeEditOutcome {
  text: string;
  firstLine: number;
  lastLine: number;
  replacements: number;
}

/** Applies one code edit to `text`; pure, throws ToolInputError on impossible edits. */
export function applyCodeEdit(text: string, edit: CodeEdit): CodeEditOutcome {
  if (edit.command === "write") {
    return { text: edit.content, firstLine: 1, lastLine: Math.max(1, countLines(edit.content)), replacements: 1 };
  }
  if (edit.command === "replace_lines") {
    const lines = text.split("\n");
    const total = text.endsWith("\n") ? lines.length - 1 : lines.length;
    if (edit.startLine > edit.endLine + 1)
      throw new ToolInputError(`startLine (${edit.startLine}) is after endLine (${edit.endLine}).`);
    if (edit.startLine > total + 1 || edit.endLine > total) {
      throw new ToolInputError(
        `Lines ${edit.startLine}-${edit.endLine} are outside the file, which has ${total} lines.`,
      );
    }
    const replacement = edit.content === "" ? [] : edit.content.replace(/\n$/, "").split("\n");
    lines.splice(edit.startLine - 1, edit.endLine - edit.startLine + 1, ...replacement);
    return {
      text: lines.join("\n"),
      firstLine: edit.startLine,
      lastLine: edit.startLine + Math.max(replacement.length, 1) - 1,
      replacements: 1,
    };
  }
  const pattern = edit.regex ? compile(edit.find, edit.all) : undefined;
  const first = pattern
    ? text.search(new RegExp(pattern.source, pattern.flags.replace("g", "")))
    : text.indexOf(edit.find);
  if (first === -1)
    throw new ToolInputError(
      `"${edit.find}" was not found${edit.regex ? " (as a regular expression)" : ""}. Read the file again; the match is exact.`,
    );
  let replacements = 1;
  let result: string;
  if (pattern) {
    replacements = edit.all ? (text.match(pattern) ?? []).length : 1;
    result = text.replace(pattern, edit.content);
  } else if (edit.all) {
    replacements = text.split(edit.find).length - 1;
    result = text.split(edit.find).join(edit.content);
  } else {
    if (text.indexOf(edit.find, first + 1) !== -1) {
      throw new ToolInputError(
        `"${edit.find}" matches more than once; add surrounding text to make it unique, or set all: true.`,
      );
    }
    result = text.slice(0, first) + edit.content + text.slice(first + edit.find.length);
  }
  const firstLine = text.slice(0, first).split("\n").length;
  const lastLine = firstLine + (edit.content.replace(/\n$/, "").match(/\n/g) ?? []).length;
  return { text: result, firstLine, lastLine, replacements };
}

/** The edited region with a few lines around it, numbered like `cat -n`. */
export function renderRegion(text: string, firstLine: number, lastLine: number, context = CONTEXT_LINES): string {
  const lines = text.split("\n");
  const from = Math.max(1, firstLine - context);
  const to = Math.min(lines.length, lastLine + context);
  const width = String(to).length;
  const out: string[] = [];
  for (let n = from; n <= to; n += 1)
    out.push(`${String(n).padStart(width)}${n >= firstLine && n <= lastLine ? ">" : " "} ${lines[n - 1]}`);
  return out.join("\n");
}

function compile(source: string, all: boolean | undefined): RegExp {
  try {
    return new RegExp(source, all ? "gm" : "m");
  } catch (error) {
    throw new ToolInputError(`Invalid regular expression: ${(error as Error).message}`);
  }
}

function countLines(text: string): number {
  return text === "" ? 0 : text.split("\n").length;
}

/** Registers `code_edit`: line-range, find/replace and whole-file edits that answer with the changed region. */
export function registerCodeEdit(registry: ToolRegistry, access: AccessControl): void {
  registry.register({
    name: "code_edit",
    description:
      "Edit a file surgically. replace_lines: replace lines startLine..endLine (1-based, inclusive) with content. find_replace: replace find (literal, or regex) with content, once or all. write: replace the whole file. Answers with the changed region and context lines (edited lines marked with >).",
    inputSchema: {
      path: pathField,
      command: z.enum(["replace_lines", "find_replace", "write"]).describe("Kind of edit"),
      content: z.string().describe("New text: the replacement lines, the replacement for find, or the whole file"),
      startLine: z.number().int().min(1).optional().describe("replace_lines: first line to replace (1-based)"),
      endLine: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe("replace_lines: last line to replace (inclusive); startLine-1 inserts before startLine"),
      find: z.string().min(1).optional().describe("find_replace: text or regular expression to find"),
      regex: z
        .boolean()
        .optional()
        .describe("find_replace: treat find as a JavaScript regular expression ($1 works in content)"),
      all: z.boolean().optional().describe("find_replace: replace every occurrence"),
    },
    annotations: { destructiveHint: true },
    handler: async (args) => {
      const resolved = await access.resolve(args.path, "write");
      const before = args.command === "write" && !resolved.exists ? "" : await readResolvedText(resolved);
      const edit = toCodeEdit(args);
      const outcome = applyCodeEdit(before, edit);
      await writeFileBeneath(resolved.root, beneathRoot(resolved), outcome.text);
      const header = `Edited ${resolved.relative} (${outcome.replacements} replacement${outcome.replacements === 1 ? "" : "s"}), lines ${outcome.firstLine}-${outcome.lastLine}:`;
      return textResult(`${header}\n${renderRegion(outcome.text, outcome.firstLine, outcome.lastLine)}`, {
        path: resolved.relative,
        firstLine: outcome.firstLine,
        lastLine: outcome.lastLine,
        replacements: outcome.replacements,
      });
    },
  });
}

function toCodeEdit(args: {
  command: CodeEdit["command"];
  content: string;
  startLine?: number | undefined;
  endLine?: number | undefined;
  find?: string | undefined;
  regex?: boolean | undefined;
  all?: boolean | undefined;
}): CodeEdit {
  switch (args.command) {
    case "write":
      return { command: "write", content: args.content };
    case "replace_lines":
      if (args.startLine === undefined || args.endLine === undefined)
        throw new ToolInputError("replace_lines needs startLine and endLine.");
      return { command: "replace_lines", startLine: args.startLine, endLine: args.endLine, content: args.content };
    case "find_replace":
      if (args.find === undefined) throw new ToolInputError("find_replace needs find.");
      return { command: "find_replace", find: args.find, content: args.content, regex: args.regex, all: args.all };
  }
}
