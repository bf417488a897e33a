import { constants, lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { ToolRegistry } from "../registry.js";
import { describeToolError, textResult, ToolInputError } from "../tool-result.js";
import { beneathRoot, inside, openDirectoryBeneath, openFileBeneath, type Descriptor } from "./beneath.js";
import { globToRegExp, matchesAny } from "./glob-match.js";
import type { ResolvedPath } from "./resolve-inside.js";
import type { AccessControl } from "../permissions/access-control.js";

/** Largest file read_file reads whole. */
export const MAX_READ_BYTES = 10 * 1024 * 1024;
const MAX_TREE_ENTRIES = 5_000;
/**
 * Directory walks make synchronous calls (under gVisor each asynchronous one costs about
 * four times as much) and give the event loop a turn after this many entries, so a large
 * directory does not hold up the session's other calls or their cancellation.
 */
const ENTRIES_PER_TURN = 256;

/** Counts entries and, every ENTRIES_PER_TURN of them, lets the event loop run. */
function turnTaker(): () => Promise<void> | undefined {
  let entries = 0;
  return () => ((entries += 1) % ENTRIES_PER_TURN === 0 ? new Promise((resolve) => setImmediate(resolve)) : undefined);
}

/** The path field every file tool shares. */
export const pathField = z
  .string()
  .describe("Path relative to /workspace (an absolute path inside /workspace is accepted too)");

/** Reads a resolved path as text without following a symlink planted after resolution; refuses oversized files. */
export async function readResolvedText(resolved: ResolvedPath): Promise<string> {
  const handle = await openFileBeneath(resolved.root, beneathRoot(resolved), constants.O_RDONLY);
  try {
    const stats = handle.stat();
    if (stats.isDirectory())
      throw new ToolInputError(`Expected a file but "${resolved.relative || "."}" is a directory. Use list_directory.`);
    if (stats.size > MAX_READ_BYTES) {
      throw new ToolInputError(
        `The file is ${stats.size} bytes; read_file reads at most ${MAX_READ_BYTES}. Use head/tail, offset/limit or grep.`,
      );
    }
    return handle.readText(stats.isFile() ? stats.size : undefined);
  } finally {
    handle.closeNow();
  }
}

/** Selects lines: `head`/`tail` counts, or a 1-based `offset` with `limit`. Pure. */
export function selectLines(
  text: string,
  options: { offset?: number; limit?: number; head?: number; tail?: number },
): string {
  const { offset, limit, head, tail } = options;
  if (head !== undefined && tail !== undefined) throw new ToolInputError("Use head or tail, not both.");
  const lines = text.split("\n");
  const trailingNewline = text.endsWith("\n");
  const body = trailingNewline ? lines.slice(0, -1) : lines;
  if (head !== undefined) return body.slice(0, head).join("\n") + (head > 0 && trailingNewline ? "\n" : "");
  if (tail !== undefined)
    return body.slice(Math.max(0, body.length - tail)).join("\n") + (tail > 0 && trailingNewline ? "\n" : "");
  if (offset === undefined && limit === undefined) return text;
  const start = (offset ?? 1) - 1;
  const end = limit === undefined ? body.length : Math.min(body.length, start + limit);
  return `${body.slice(start, end).join("\n")}\n[lines ${start + 1}-${end} of ${body.length}]`;
}

type TreeEntry = { name: string; type: "file" | "directory" | "symlink"; children?: TreeEntry[] };

/** Registers the read-only file tools. */
export function registerReadTools(registry: ToolRegistry, access: AccessControl): void {
  registry.register({
    name: "read_file",
    description: "Read a text file. Use head/tail for the first/last lines, or offset/limit for a range.",
    inputSchema: {
      path: pathField,
      offset: z.number().int().min(1).optional().describe("1-based line number to start reading from"),
      limit: z.number().int().min(1).optional().describe("Maximum number of lines to return from offset"),
      head: z.number().int().min(0).optional().describe("Return only the first N lines"),
      tail: z.number().int().min(0).optional().describe("Return only the last N lines"),
    },
    annotations: { readOnlyHint: true },
    handler: async ({ path: target, ...range }) => {
      const resolved = await access.resolve(target, "read");
      return textResult(selectLines(await readResolvedText(resolved), range));
    },
  });

  registry.register({
    name: "read_multiple_files",
    description: "Read several text files at once; a file that fails is reported in place without failing the others.",
    inputSchema: { paths: z.array(pathField).min(1).max(100).describe("Paths to read") },
    annotations: { readOnlyHint: true },
    handler: async ({ paths }) => {
      const parts = await Promise.all(
        paths.map(async (target) => {
          try {
            const resolved = await access.resolve(target, "read");
            return `${target}:\n${await readResolvedText(resolved)}`;
          } catch (error) {
            return `${target}: Error - ${describeToolError(error)}`;
          }
        }),
      );
      return textResult(parts.join("\n---\n"));
    },
  });

  registry.register({
    name: "list_directory",
    description:
      "List a directory: one entry per line, prefixed [DIR], [FILE] or [LINK]; optionally with sizes, sorted by name or size.",
    inputSchema: {
      path: pathField.optional(),
      sizes: z.boolean().optional().describe("Show file sizes and a summary"),
      sortBy: z.enum(["name", "size"]).optional().describe("Sort by name (default) or size, largest first"),
    },
    annotations: { readOnlyHint: true },
    handler: async ({ path: target, sizes, sortBy }) => {
      const resolved = await access.resolve(target ?? ".", "read");
      const directory = await openDirectoryBeneath(resolved.root, beneathRoot(resolved));
      let rows: { name: string; kind: string; size: number }[];
      try {
        const entries = readdirSync(`/proc/self/fd/${directory.fd}`, { withFileTypes: true });
        const turn = turnTaker();
        rows = [];
        for (const entry of entries) {
          await turn();
          rows.push({
            name: entry.name,
            kind: entry.isDirectory() ? "[DIR]" : entry.isSymbolicLink() ? "[LINK]" : "[FILE]",
            size: entry.isFile() ? lstatSync(inside(directory, entry.name)).size : 0,
          });
        }
      } finally {
        await directory.close();
      }
      rows.sort((a, b) =>
        sortBy === "size" ? b.size - a.size || a.name.localeCompare(b.name) : a.name.localeCompare(b.name),
      );
      if (rows.length === 0) return textResult("(empty directory)");
      const lines = rows.map(
        (row) => `${row.kind} ${row.name}${sizes && row.kind === "[FILE]" ? ` (${formatSize(row.size)})` : ""}`,
      );
      if (sizes) {
        const files = rows.filter((row) => row.kind === "[FILE]");
        lines.push(
          "",
          `Total: ${files.length} files, ${rows.length - files.length} other entries, ${formatSize(files.reduce((sum, row) => sum + row.size, 0))}`,
        );
      }
      return textResult(lines.join("\n"));
    },
  });

  registry.register({
    name: "directory_tree",
    description: "A recursive JSON tree of a directory ({name, type, children}); .git is always left out.",
    inputSchema: {
      path: pathField.optional(),
      excludePatterns: z.array(z.string()).optional().describe('Globs to leave out, e.g. ["node_modules", "**/*.log"]'),
      maxDepth: z.number().int().min(1).max(50).optional().describe("Levels to descend (default 10)"),
    },
    annotations: { readOnlyHint: true },
    handler: async ({ path: target, excludePatterns, maxDepth }) => {
      const resolved = await access.resolve(target ?? ".", "read");
      const excludes = [".git", ...(excludePatterns ?? [])].map(globToRegExp);
      let count = 0;
      const turn = turnTaker();
      const walk = async (dir: Descriptor, relative: string, depth: number): Promise<TreeEntry[]> => {
        const entries = readdirSync(`/proc/self/fd/${dir.fd}`, { withFileTypes: true }).sort((a, b) =>
          a.name.localeCompare(b.name),
        );
        const out: TreeEntry[] = [];
        for (const entry of entries) {
          await turn();
          const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
          if (matchesAny(rel, excludes)) continue;
          if (++count > MAX_TREE_ENTRIES)
            throw new ToolInputError(
              `More than ${MAX_TREE_ENTRIES} entries; narrow the path, add excludePatterns or lower maxDepth.`,
            );
          if (entry.isDirectory()) {
            let children: TreeEntry[] = [];
            if (depth > 1) {
              const child = await openDirectoryBeneath(`/proc/self/fd/${dir.fd}`, entry.name);
              try {
                children = await walk(child, rel, depth - 1);
              } finally {
                await child.close();
              }
            }
            out.push({ name: entry.name, type: "directory", children });
          } else out.push({ name: entry.name, type: entry.isSymbolicLink() ? "symlink" : "file" });
        }
        return out;
      };
      const top = await openDirectoryBeneath(resolved.root, beneathRoot(resolved));
      try {
        return textResult(JSON.stringify(await walk(top, "", maxDepth ?? 10), null, 2));
      } finally {
        await top.close();
      }
    },
  });

  registry.register({
    name: "get_file_info",
    description:
      "Size, type, permissions and times of a file or directory. A symlink is followed to what it names inside the workspace (list_directory shows links as [LINK]); one leading out is refused.",
    inputSchema: { path: pathField },
    annotations: { readOnlyHint: true },
    handler: async ({ path: target }) => {
      const resolved = await access.resolve(target, "read");
      const relative = beneathRoot(resolved);
      const parent = await openDirectoryBeneath(resolved.root, path.posix.dirname(relative));
      let stats;
      try {
        // The workspace root is the open directory itself (lstat of its /proc link would describe the link).
        stats = relative === "" ? parent.stat() : lstatSync(inside(parent, path.posix.basename(relative)));
      } finally {
        parent.closeNow();
      }
      const info = {
        path: resolved.relative || ".",
        type: stats.isDirectory()
          ? "directory"
          : stats.isSymbolicLink()
            ? "symlink"
            : stats.isFile()
              ? "file"
              : "other",
        size: stats.size,
        permissions: (stats.mode & 0o7777).toString(8).padStart(4, "0"),
        created: stats.birthtime.toISOString(),
        modified: stats.mtime.toISOString(),
        accessed: stats.atime.toISOString(),
      };
      return textResult(
        Object.entries(info)
          .map(([key, value]) => `${key}: ${value}`)
          .join("\n"),
        info,
      );
    },
  });
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
