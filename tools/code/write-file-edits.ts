import { beneathRoot, writeFileBeneath } from "../fs/beneath.js";
import { unifiedDiff } from "../fs/write-tools.js";
import type { AccessControl } from "../permissions/access-control.js";
import { textResult } from "../tool-result.js";
import type { FileEdits } from "./ts-operations.js";
import type { TsProject } from "./ts-project.js";

const MAX_PREVIEW_CHARS = 60_000;

/**
 * Writes every changed file of `edits`, or none when one is not writable; with `preview`,
 * writes nothing and answers the unified diff (truncated past MAX_PREVIEW_CHARS).
 */
export async function writeFileEdits(
  access: AccessControl,
  project: Pick<TsProject, "relative">,
  edits: FileEdits,
  preview: boolean,
  operation: string,
) {
  const changed = [...edits].filter(([, edit]) => edit.before !== edit.after);
  if (changed.length === 0) return textResult(`${operation}: nothing to change.`, { files: [], preview });
  // Every file must be writable before any is written: all or nothing.
  const targets = [];
  for (const [file, edit] of changed)
    targets.push({ resolved: await access.resolve(file, "write"), edit, relative: project.relative(file) });
  const diff = targets.map(({ relative, edit }) => unifiedDiff(relative, edit.before ?? "", edit.after)).join("");
  const files = targets.map(({ relative, edit }) => ({ path: relative, created: edit.before === null }));
  if (!preview) {
    for (const { resolved, edit } of targets) await writeFileBeneath(resolved.root, beneathRoot(resolved), edit.after);
  }
  const shown =
    diff.length > MAX_PREVIEW_CHARS
      ? `${diff.slice(0, MAX_PREVIEW_CHARS)}\n[... diff truncated: ${diff.length - MAX_PREVIEW_CHARS} more characters ...]`
      : diff;
  const summary = `${operation}: ${preview ? "would write" : "wrote"} ${files.length} file${files.length === 1 ? "" : "s"}: ${files.map((file) => file.path).join(", ")}`;
  return textResult(preview ? `${summary}\n\n${shown}` : summary, {
    files,
    preview,
    ...(preview ? { diff: shown } : {}),
  });
}
