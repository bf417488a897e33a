import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { createTwoFilesPatch } from "diff";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { guarded, textResult, ToolInputError } from "../tool-result.js";
import { writeFileAtomic } from "./atomic-write.js";
import { resolveInside } from "./resolve-inside.js";

const MAX_READ_BYTES = 10 * 1024 * 1024;

const pathField = z.string().describe("Path relative to /workspace (an absolute path inside /workspace is accepted too)");

/** Registers read_file, write_file, edit_file and list_directory, all confined to `root`. */
export function registerFileTools(server: McpServer, root: string): void {
  server.registerTool(
    "read_file",
    {
      description: "Read a text file from the workspace. Use offset/limit to read part of a large file.",
      inputSchema: {
        path: pathField,
        offset: z.number().int().min(1).optional().describe("1-based line number to start reading from"),
        limit: z.number().int().min(1).optional().describe("Maximum number of lines to return"),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ path, offset, limit }) => {
      const resolved = await resolveInside(root, path);
      const text = await readTextNoFollow(resolved.absolute);
      if (offset === undefined && limit === undefined) return textResult(text);
      const lines = text.split("\n");
      const start = (offset ?? 1) - 1;
      const end = limit === undefined ? lines.length : Math.min(lines.length, start + limit);
      const slice = lines.slice(start, end).join("\n");
      return textResult(`${slice}\n[lines ${start + 1}-${end} of ${lines.length}]`);
    }),
  );

  server.registerTool(
    "write_file",
    {
      description: "Create a file or overwrite it completely (parent directories are created). Prefer edit_file for changes to existing files.",
      inputSchema: { path: pathField, content: z.string().describe("The complete new content of the file") },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    guarded(async ({ path, content }) => {
      const resolved = await resolveInside(root, path);
      await writeFileAtomic(resolved.absolute, content);
      return textResult(`Wrote ${Buffer.byteLength(content)} bytes to ${resolved.relative}`);
    }),
  );

  server.registerTool(
    "edit_file",
    {
      description:
        "Apply exact text replacements to a file, all or nothing. Each oldText must appear exactly once. Answers with a unified diff; dryRun previews without writing.",
      inputSchema: {
        path: pathField,
        edits: z
          .array(
            z.object({
              oldText: z.string().min(1).describe("Text to find; must match exactly once, including whitespace"),
              newText: z.string().describe("Replacement text"),
            }),
          )
          .min(1)
          .describe("Replacements, applied in order"),
        dryRun: z.boolean().optional().describe("Return the diff without writing the file"),
      },
      annotations: { destructiveHint: true },
    },
    guarded(async ({ path, edits, dryRun }) => {
      const resolved = await resolveInside(root, path);
      const before = await readTextNoFollow(resolved.absolute);
      const after = applyEdits(before, edits);
      const patch = createTwoFilesPatch(`a/${resolved.relative}`, `b/${resolved.relative}`, before, after);
      if (!dryRun) await writeFileAtomic(resolved.absolute, after);
      return textResult(dryRun ? `Dry run, nothing written:\n${patch}` : patch);
    }),
  );

  server.registerTool(
    "list_directory",
    {
      description: "List a directory of the workspace: one entry per line, prefixed [DIR], [FILE] or [LINK].",
      inputSchema: { path: pathField.optional() },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ path }) => {
      const resolved = await resolveInside(root, path ?? ".");
      const entries = await readdir(resolved.absolute, { withFileTypes: true });
      const lines = entries
        .map((entry) => `${entry.isDirectory() ? "[DIR]" : entry.isSymbolicLink() ? "[LINK]" : "[FILE]"} ${entry.name}`)
        .sort((a, b) => a.slice(a.indexOf(" ")).localeCompare(b.slice(b.indexOf(" "))));
      return textResult(lines.length === 0 ? "(empty directory)" : lines.join("\n"));
    }),
  );
}

/** Applies edits in order; each `oldText` must occur exactly once in the text at that point. */
export function applyEdits(text: string, edits: readonly { oldText: string; newText: string }[]): string {
  let current = text;
  edits.forEach((edit, index) => {
    const first = current.indexOf(edit.oldText);
    if (first === -1) {
      throw new ToolInputError(
        `Edit ${index + 1}: oldText was not found. It must match the file exactly, including whitespace and line breaks; read the file again and copy the text.`,
      );
    }
    if (current.indexOf(edit.oldText, first + 1) !== -1) {
      throw new ToolInputError(
        `Edit ${index + 1}: oldText matches more than once. Include more surrounding lines so it matches exactly one place.`,
      );
    }
    current = current.slice(0, first) + edit.newText + current.slice(first + edit.oldText.length);
  });
  return current;
}

/** Reads a resolved path without following a symlink planted after resolution. */
async function readTextNoFollow(absolute: string): Promise<string> {
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw new ToolInputError(`Expected a file but "${absolute}" is a directory. Use list_directory.`);
    if (stats.size > MAX_READ_BYTES) {
      throw new ToolInputError(`The file is ${stats.size} bytes; read_file reads at most ${MAX_READ_BYTES}. Use offset/limit or grep.`);
    }
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}
