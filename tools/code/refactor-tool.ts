import { z } from "zod";
import type { ToolRegistry } from "../registry.js";
import { ToolInputError } from "../tool-result.js";
import { writeFileEdits } from "./write-file-edits.js";
import type { CodeContext } from "./code-context.js";
import { columnField, filePathField, lineField, symbolField } from "./code-fields.js";
import { extractEdits, moveEdits, organizeImportsEdits, renameEdits, type FileEdits } from "./ts-operations.js";
import { isTsLike } from "./ts-project.js";

const REFACTOR_OPERATIONS = [
  "rename",
  "extract_function",
  "extract_variable",
  "organize_imports",
  "move_symbol_to_file",
] as const;

/** Registers code_refactor: language-service refactorings across files (TS/JS; rename also in Python), all or nothing. */
export function registerRefactorTool(registry: ToolRegistry, code: CodeContext): void {
  const { access } = code;
  registry.register({
    name: "code_refactor",
    description:
      "Refactor with a language service across all files: rename (every reference and import; strings and comments untouched; TypeScript, JavaScript, Python), extract_function / extract_variable (lines startLine..endLine), organize_imports, move_symbol_to_file (a top-level declaration to targetFile, imports fixed). With preview: true, answers the unified diff and changes nothing. Other languages: use code_edit or edit_file.",
    inputSchema: {
      operation: z.enum(REFACTOR_OPERATIONS).describe("The refactoring"),
      filePath: filePathField,
      symbolName: symbolField.optional(),
      line: lineField.optional(),
      column: columnField.optional(),
      newName: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe("rename: the new name; extract_*: the name of the new function or variable"),
      startLine: z.number().int().min(1).optional().describe("extract_*: first line of the code to extract"),
      endLine: z.number().int().min(1).optional().describe("extract_*: last line of the code to extract"),
      targetFile: z.string().min(1).optional().describe("move_symbol_to_file: the destination file"),
      preview: z.boolean().optional().describe("Return the diff without writing anything (default false)"),
    },
    annotations: { destructiveHint: true },
    handler: async (args) => {
      const resolved = await access.resolve(args.filePath, "write");
      const python = code.pythonFor(resolved.absolute);
      if (python !== null && args.operation === "rename") {
        if (args.newName === undefined) throw new ToolInputError("rename needs newName.");
        if (!/^[A-Za-z_]\w*$/.test(args.newName))
          throw new ToolInputError(`"${args.newName}" is not a valid Python identifier.`);
        const at = await code.pythonPosition(args);
        return writeFileEdits(
          access,
          code.workspacePaths,
          await python.rename(at.file, at.line, at.column, args.newName),
          args.preview === true,
          "rename",
        );
      }
      const project = code.tsFor(resolved.absolute);
      if (project === null) {
        throw new ToolInputError(
          `code_refactor ${args.operation} needs a TypeScript or JavaScript file${python !== null ? " (Python supports rename)" : ""}; ${args.filePath} has no language service for it here. Make the change with code_edit or edit_file (find the places with code_navigate).`,
        );
      }
      let edits: FileEdits;
      switch (args.operation) {
        case "rename": {
          if (args.newName === undefined) throw new ToolInputError("rename needs newName.");
          const at = await code.positionIn(project, args);
          edits = renameEdits(project, at!, args.newName);
          break;
        }
        case "extract_function":
        case "extract_variable":
          if (args.startLine === undefined || args.endLine === undefined)
            throw new ToolInputError(`${args.operation} needs startLine and endLine.`);
          if (args.endLine < args.startLine)
            throw new ToolInputError(`endLine (${args.endLine}) is before startLine (${args.startLine}).`);
          edits = extractEdits(
            project,
            resolved.absolute,
            args.operation === "extract_function" ? "function" : "constant",
            args.startLine,
            args.endLine,
            args.newName,
          );
          break;
        case "organize_imports":
          edits = organizeImportsEdits(project, resolved.absolute);
          break;
        case "move_symbol_to_file": {
          if (args.symbolName === undefined || args.targetFile === undefined)
            throw new ToolInputError("move_symbol_to_file needs symbolName and targetFile.");
          if (!isTsLike(args.targetFile))
            throw new ToolInputError(
              `targetFile must be a TypeScript or JavaScript file; received "${args.targetFile}".`,
            );
          const target = await access.resolve(args.targetFile, "write");
          edits = moveEdits(project, resolved.absolute, args.symbolName, target.absolute);
          break;
        }
      }
      return writeFileEdits(access, project, edits, args.preview === true, args.operation);
    },
  });
}
