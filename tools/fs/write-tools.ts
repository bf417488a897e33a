import { rename } from "node:fs/promises";
import path from "node:path";
import { createTwoFilesPatch } from "diff";
import { z } from "zod";
import type { ToolRegistry } from "../registry.js";
import { textResult, ToolInputError } from "../tool-result.js";
import { beneathRoot, inside, openDirectoryBeneath, writeFileBeneath } from "./beneath.js";
import { pathField, readResolvedText } from "./read-tools.js";
import type { AccessControl } from "../permissions/access-control.js";

/** One replacement of edit_file. */
export interface TextEdit {
  oldText: string;
  newText: string;
  replaceAll?: boolean | undefined;
}

/**
 * Applies edits in order to the result of the previous one. Each `oldText` must occur
 * exactly once unless `replaceAll`; any failure throws before anything is written.
 */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let current = text;
  edits.forEach((edit, index) => {
    const first = current.indexOf(edit.oldText);
    if (first === -1) {
      throw new ToolInputError(
        `Edit ${index + 1}: oldText was not found. It must match the file exactly, including whitespace and line breaks; read the file again and copy the text.`,
      );
    }
    if (edit.replaceAll) {
      current = current.split(edit.oldText).join(edit.newText);
      return;
    }
    if (current.indexOf(edit.oldText, first + 1) !== -1) {
      throw new ToolInputError(
        `Edit ${index + 1}: oldText matches more than once. Include more surrounding lines so it matches exactly one place, or set replaceAll.`,
      );
    }
    current = current.slice(0, first) + edit.newText + current.slice(first + edit.oldText.length);
  });
  return current;
}

/** A unified diff between two versions of one file. */
export function unifiedDiff(relative: string, before: string, after: string): string {
  return createTwoFilesPatch(`a/${relative}`, `b/${relative}`, before, after, undefined, undefined, { context: 3 });
}

/** Registers the file tools that change the workspace. */
export function registerWriteTools(registry: ToolRegistry, access: AccessControl): void {
  registry.register({
    name: "write_file",
    description:
      "Create a file or overwrite it completely (parent directories are created; the write is atomic). Prefer edit_file or code_edit for changes.",
    inputSchema: { path: pathField, content: z.string().describe("The complete new content of the file") },
    annotations: { destructiveHint: true, idempotentHint: true },
    handler: async ({ path: target, content }) => {
      const resolved = await access.resolve(target, "write");
      await writeFileBeneath(resolved.root, beneathRoot(resolved), content);
      return textResult(`Wrote ${Buffer.byteLength(content)} bytes to ${resolved.relative}`);
    },
  });

  registry.register({
    name: "edit_file",
    description:
      "Apply exact text replacements to a file, all or nothing. Each oldText must appear exactly once unless replaceAll. Answers with a unified diff; dryRun previews without writing.",
    inputSchema: {
      path: pathField,
      edits: z
        .array(
          z.object({
            oldText: z.string().min(1).describe("Text to find; must match exactly, including whitespace"),
            newText: z.string().describe("Replacement text"),
            replaceAll: z.boolean().optional().describe("Replace every occurrence instead of requiring exactly one"),
          }),
        )
        .min(1)
        .describe("Replacements, applied in order"),
      dryRun: z.boolean().optional().describe("Return the diff without writing the file"),
    },
    annotations: { destructiveHint: true },
    handler: async ({ path: target, edits, dryRun }) => {
      const resolved = await access.resolve(target, "write");
      const before = await readResolvedText(resolved);
      const after = applyEdits(before, edits);
      const patch = unifiedDiff(resolved.relative, before, after);
      if (!dryRun) await writeFileBeneath(resolved.root, beneathRoot(resolved), after);
      return textResult(dryRun ? `Dry run, nothing written:\n${patch}` : patch);
    },
  });

  registry.register({
    name: "create_directory",
    description: "Create a directory and any missing parents; succeeds if it exists already.",
    inputSchema: { path: pathField },
    annotations: { destructiveHint: false, idempotentHint: true },
    handler: async ({ path: target }) => {
      const resolved = await access.resolve(target, "write");
      await (await openDirectoryBeneath(resolved.root, beneathRoot(resolved), { create: true })).close();
      return textResult(`Directory ${resolved.relative || "."} exists.`);
    },
  });

  registry.register({
    name: "move_file",
    description: "Move or rename a file or directory. Fails if the destination exists.",
    inputSchema: {
      source: pathField.describe("Path to move"),
      destination: pathField.describe("New path; must not exist"),
    },
    annotations: { destructiveHint: true },
    handler: async ({ source, destination }) => {
      const from = await access.resolve(source, "write");
      const to = await access.resolve(destination, "write");
      if (!from.exists) throw new ToolInputError(`Source "${source}" does not exist.`);
      if (to.exists)
        throw new ToolInputError(
          `Destination "${destination}" already exists; choose another name or remove it first.`,
        );
      if (from.relative === "") throw new ToolInputError("The workspace root cannot be moved.");
      const fromParent = await openDirectoryBeneath(from.root, path.posix.dirname(beneathRoot(from)));
      try {
        const toParent = await openDirectoryBeneath(to.root, path.posix.dirname(beneathRoot(to)), { create: true });
        try {
          await rename(
            inside(fromParent, path.posix.basename(from.absolute)),
            inside(toParent, path.posix.basename(to.absolute)),
          );
        } finally {
          await toParent.close();
        }
      } finally {
        await fromParent.close();
      }
      return textResult(`Moved ${from.relative} to ${to.relative}`);
    },
  });
}
