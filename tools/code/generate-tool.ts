import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { ToolRegistry } from "../registry.js";
import { textResult, ToolInputError } from "../tool-result.js";
import { writeFileEdits } from "./write-file-edits.js";
import type { CodeContext } from "./code-context.js";
import { filePathField, symbolField } from "./code-fields.js";
import {
  codeFixEdits,
  pythonTestSkeleton,
  testFramework,
  testPathFor,
  tsTestSkeleton,
  type FixOperation,
} from "./generate.js";
import { languageOf } from "./heuristic.js";

/** Registers code_generate: code the language service's fixes write, and test skeletons (never over an existing file). */
export function registerGenerateTool(registry: ToolRegistry, code: CodeContext): void {
  const { access, root } = code;
  registry.register({
    name: "code_generate",
    description:
      "Generate compilable structure with the language service's code fixes: implement_interface (the members an interface or abstract class requires, for symbolName or every class in the file), add_missing_members (members used but not declared), add_missing_imports (imports for names used but not imported), test_skeleton (a test file for the file's exports in the project's test framework, to fill in). Answers the files written; preview returns the diff instead.",
    inputSchema: {
      operation: z
        .enum(["implement_interface", "add_missing_members", "add_missing_imports", "test_skeleton"])
        .describe("What to generate"),
      filePath: filePathField,
      symbolName: symbolField
        .optional()
        .describe("Limit to this class (implement_interface) or export (test_skeleton)"),
      preview: z.boolean().optional().describe("Return the diff without writing anything (default false)"),
    },
    annotations: { destructiveHint: false },
    handler: async (args) => {
      const source = await access.resolve(args.filePath, "read");
      if (args.operation === "test_skeleton") {
        const python = languageOf(source.relative) === "python";
        const project = python ? null : code.tsFor(source.absolute);
        if (!python && project === null)
          throw new ToolInputError(
            `test_skeleton supports TypeScript, JavaScript and Python files; write a test for ${args.filePath} with write_file.`,
          );
        const testRelative = testPathFor(root, source.relative, python);
        const target = await access.resolve(testRelative, "write");
        if (target.exists)
          throw new ToolInputError(
            `${testRelative} already exists; add to it with code_edit rather than overwrite it.`,
          );
        const text = python
          ? pythonTestSkeleton(root, source.relative, await readFile(source.absolute, "utf8"), args.symbolName)
          : tsTestSkeleton(project!, source.absolute, testRelative, testFramework(root), args.symbolName);
        return writeFileEdits(
          access,
          code.workspacePaths,
          new Map([[target.absolute, { before: null, after: text }]]),
          args.preview === true,
          "test_skeleton",
        );
      }
      const project = code.tsFor(source.absolute);
      if (project === null)
        throw new ToolInputError(
          `${args.operation} needs a TypeScript or JavaScript file; ${args.filePath} has no language service here. Write the code with code_edit.`,
        );
      const edits = codeFixEdits(project, source.absolute, args.operation as FixOperation, args.symbolName);
      if (edits.size === 0)
        return textResult(
          `${args.operation}: nothing to generate in ${source.relative} (the language service reports nothing of that kind${args.symbolName ? ` for ${args.symbolName}` : ""}).`,
          { files: [], preview: args.preview === true },
        );
      return writeFileEdits(access, project, edits, args.preview === true, args.operation);
    },
  });
}
