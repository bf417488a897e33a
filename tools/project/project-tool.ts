import { readdirSync, readFileSync } from "node:fs";
import { isExecutableFile, pathExists } from "../fs/exists.js";
import path from "node:path";
import type { ToolRegistry } from "../registry.js";
import { textResult } from "../tool-result.js";
import { detectProject, type ProjectInfo } from "./detect-project.js";

const MAX_MANIFEST_BYTES = 1024 * 1024;

/** Detects the project in `root` by looking at its files (I/O edge of detectProject). */
export function inspectProject(root: string): ProjectInfo {
  const inside = (relative: string) => path.join(root, relative);
  return detectProject({
    has: (relative) => pathExists(inside(relative)),
    read: (relative) => {
      try {
        const text = readFileSync(inside(relative), "utf8");
        return text.length > MAX_MANIFEST_BYTES ? undefined : text;
      } catch {
        return undefined;
      }
    },
    topLevel: safeReaddir(root),
    hasProgram: isOnPath,
  });
}

/** Whether an executable `name` is in one of PATH's directories. */
function isOnPath(name: string): boolean {
  return (process.env.PATH ?? "").split(":").some((dir) => dir !== "" && isExecutableFile(path.join(dir, name)));
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Registers `project_info`. */
export function registerProjectTool(registry: ToolRegistry, root: string): void {
  registry.register({
    name: "project_info",
    description:
      "Detect the project's language, build system, build and test commands and source roots from the files present.",
    inputSchema: {},
    annotations: { readOnlyHint: true },
    handler: async () => {
      const info = inspectProject(root);
      const text = [
        `language: ${info.language}`,
        `buildSystem: ${info.buildSystem}`,
        `buildCommand: ${info.buildCommand ?? "(none)"}`,
        `testCommand: ${info.testCommand ?? "(none)"}`,
        `sourceRoots: ${info.sourceRoots.join(", ") || "(none)"}`,
        ...(info.note === undefined ? [] : [`note: ${info.note}`]),
      ].join("\n");
      return textResult(text, { ...info });
    },
  });
}
