import { readdirSync, statSync } from "node:fs";
import path from "node:path";

const SOURCE = /\.(?:[cm]?[jt]sx?)$/;
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".git", "dist", "build", "coverage", ".next", "out"]);
const MAX_FILES = 20_000;

/** Whether a path is one the TypeScript language service understands. */
export function isTsLike(file: string): boolean {
  return SOURCE.test(file);
}

/**
 * The TS/JS sources under `root` (at most MAX_FILES), for a workspace without tsconfig.json:
 * dependencies, build output and hidden folders are not the project's.
 */
export function listSources(root: string): string[] {
  const out: string[] = [];
  const walk = (directory: string): void => {
    let entries;
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (out.length >= MAX_FILES) return;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name) && !entry.name.startsWith(".")) walk(path.join(directory, entry.name));
      } else if (entry.isFile() && SOURCE.test(entry.name)) out.push(path.join(directory, entry.name));
    }
  };
  walk(root);
  return out;
}

/** A file's script version from its mtime and size; "" when it does not exist. */
export function versionOf(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.mtimeMs}:${stat.size}`;
  } catch {
    return "";
  }
}
