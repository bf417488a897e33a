import type { ToolRegistry } from "../registry.js";
import { textResult, ToolInputError } from "../tool-result.js";
import type { CodeContext } from "./code-context.js";
import { columnField, filePathField, lineField, symbolField } from "./code-fields.js";
import { navigateHeuristically } from "./heuristic-navigation.js";
import { renderLocations } from "./render-locations.js";
import { inspect } from "./ts-operations.js";

/** Registers code_inspect: a symbol's kind, signature, members, documentation and declaration. */
export function registerInspectTool(registry: ToolRegistry, code: CodeContext): void {
  registry.register({
    name: "code_inspect",
    description:
      "Describe a symbol: kind, signature or type, members (for classes, interfaces, enums), doc comment and where it is declared. Identify it by symbolName or line + column in filePath.",
    inputSchema: {
      filePath: filePathField,
      symbolName: symbolField.optional(),
      line: lineField.optional(),
      column: columnField.optional(),
    },
    annotations: { readOnlyHint: true },
    handler: async (args) => {
      if (args.symbolName === undefined && (args.line === undefined || args.column === undefined))
        throw new ToolInputError("code_inspect needs symbolName, or line and column.");
      const python = code.pythonFor(args.filePath);
      if (python !== null) {
        const at = await code.pythonPosition(args);
        const [hover, declaredAt] = await Promise.all([
          python.hover(at.file, at.line, at.column),
          python.definition(at.file, at.line, at.column),
        ]);
        if (hover === "") throw new ToolInputError(`There is no symbol at ${args.filePath}:${at.line}:${at.column}.`);
        const [signature = "", ...rest] = hover.replace(/^```python\n?|\n?```$/gm, "").split(/\n-{3,}\n|\n\n/);
        const kind =
          /^\((\w+)\)/.exec(signature)?.[1] ??
          (/^class\b/.test(signature) ? "class" : /^def\b/.test(signature) ? "function" : "symbol");
        const inspection = {
          heuristic: false,
          name: args.symbolName ?? "",
          kind,
          signature: signature.trim(),
          documentation: rest.join("\n\n").trim(),
          declaredAt,
        };
        return textResult(
          [
            `${kind}: ${inspection.signature}`,
            inspection.documentation ? `\n${inspection.documentation}` : "",
            declaredAt.length > 0 ? `\ndeclared at:\n${renderLocations(declaredAt)}` : "",
          ].join(""),
          inspection,
        );
      }
      const project = code.tsFor(args.filePath);
      if (project === null) {
        const found = await navigateHeuristically(code.access, { ...args, operation: "definition" });
        const name = args.symbolName ?? found[0]?.name ?? "";
        return textResult(
          found.length === 0
            ? `No declaration of "${name}" found (heuristic search).`
            : `Declarations of ${name} (heuristic: patterns, no language service):\n${renderLocations(found)}`,
          { heuristic: true, name, declaredAt: found },
        );
      }
      const at = await code.positionIn(project, args);
      const inspection = inspect(project, at!);
      const lines = [
        `${inspection.kind}${inspection.modifiers ? ` (${inspection.modifiers})` : ""}: ${inspection.signature}`,
      ];
      if (inspection.documentation) lines.push("", inspection.documentation);
      for (const tag of inspection.tags) lines.push(`@${tag.name} ${tag.text}`);
      if (inspection.members.length > 0)
        lines.push("", "members:", ...inspection.members.map((member) => `  ${member.name}: ${member.type}`));
      if (inspection.declaredAt.length > 0) lines.push("", "declared at:", renderLocations(inspection.declaredAt));
      return textResult(lines.join("\n"), { heuristic: false, ...inspection });
    },
  });
}
