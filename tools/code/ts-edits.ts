import type * as TS from "typescript";
import type { TsProject } from "./ts-project.js";

/** The service's default formatting, with the file's own indentation (tabs, 2 or 4 spaces). */
export function formatFor(project: TsProject, file: string): TS.FormatCodeSettings {
  const text = project.ts.sys.readFile(file) ?? "";
  const indented = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
  const tabs = indented.startsWith("\t");
  const size = tabs ? 4 : indented.length >= 4 && indented.length % 4 === 0 ? 4 : 2;
  return {
    ...project.ts.getDefaultFormatCodeSettings("\n"),
    indentSize: size,
    tabSize: size,
    convertTabsToSpaces: !tabs,
  };
}

/** Relative imports, new files allowed, and renames that change export names rather than alias them. */
export const PREFERENCES: TS.UserPreferences = {
  quotePreference: "auto",
  importModuleSpecifierPreference: "relative",
  includeCompletionsForModuleExports: true,
  allowTextChangesInNewFiles: true,
  providePrefixAndSuffixTextForRename: false,
};

/** Edits to files, keyed by absolute path; a null `before` means the file is new. */
export type FileEdits = Map<string, { before: string | null; after: string }>;

/** Applies the service's text changes in memory (nothing is written here). */
export function applyChanges(
  project: TsProject,
  changes: readonly TS.FileTextChanges[],
  into: FileEdits = new Map(),
): FileEdits {
  for (const change of changes) {
    const existing = into.get(change.fileName);
    const before =
      existing !== undefined ? existing.before : change.isNewFile ? null : (project.text(change.fileName) ?? null);
    let text = existing?.after ?? before ?? "";
    for (const edit of [...change.textChanges].sort((a, b) => b.span.start - a.span.start)) {
      text = text.slice(0, edit.span.start) + edit.newText + text.slice(edit.span.start + edit.span.length);
    }
    into.set(change.fileName, { before: change.isNewFile ? null : before, after: text });
  }
  return into;
}
