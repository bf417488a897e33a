import type * as TS from "typescript";
import { ToolInputError } from "../tool-result.js";
import type { CodeLocation } from "./ts-navigate.js";
import type { Position, TsProject } from "./ts-project.js";

/** What `code_inspect` answers. */
export interface Inspection {
  name: string;
  kind: string;
  modifiers: string;
  signature: string;
  documentation: string;
  tags: { name: string; text: string }[];
  declaredAt: CodeLocation[];
  members: { name: string; kind: string; type: string }[];
}

/** The symbol at a position: kind, signature, doc comment, declaration and members. */
export function inspect(project: TsProject, at: Position): Inspection {
  const info = project.service.getQuickInfoAtPosition(at.file, at.offset);
  if (info === undefined)
    throw new ToolInputError(`There is no symbol at ${project.relative(at.file)}:${at.line}:${at.column}.`);
  const text = (parts: readonly TS.SymbolDisplayPart[] | undefined) => (parts ?? []).map((part) => part.text).join("");
  const declaredAt = (project.service.getDefinitionAtPosition(at.file, at.offset) ?? []).map((definition) =>
    project.location(definition.fileName, definition.textSpan.start),
  );
  const source = project.sourceFile(at.file);
  const node = tokenAt(project.ts, source, at.offset);
  const checker = project.program().getTypeChecker();
  const symbol = node === undefined ? undefined : checker.getSymbolAtLocation(node);
  const members: Inspection["members"] = [];
  if (symbol !== undefined && node !== undefined) {
    const target = symbol.flags & project.ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const typeLike =
      target.flags &
      (project.ts.SymbolFlags.Class |
        project.ts.SymbolFlags.Interface |
        project.ts.SymbolFlags.Enum |
        project.ts.SymbolFlags.TypeAlias);
    if (typeLike) {
      const type = checker.getDeclaredTypeOfSymbol(target);
      for (const member of checker.getPropertiesOfType(type).slice(0, 100)) {
        const declaration = member.valueDeclaration ?? member.declarations?.[0];
        const memberType =
          declaration === undefined
            ? checker.getTypeOfSymbol(member)
            : checker.getTypeOfSymbolAtLocation(member, declaration);
        members.push({
          name: member.getName(),
          kind: member.flags & project.ts.SymbolFlags.Method ? "method" : "property",
          type: checker.typeToString(memberType, undefined, project.ts.TypeFormatFlags.NoTruncation),
        });
      }
    }
  }
  return {
    name:
      node !== undefined && (project.ts.isIdentifier(node) || project.ts.isPrivateIdentifier(node))
        ? node.text
        : source.text.slice(info.textSpan.start, info.textSpan.start + info.textSpan.length),
    kind: info.kind,
    modifiers: info.kindModifiers,
    signature: text(info.displayParts),
    documentation: text(info.documentation),
    tags: (info.tags ?? []).map((tag) => ({ name: tag.name, text: text(tag.text) })),
    declaredAt,
    members,
  };
}

function tokenAt(ts: typeof TS, source: TS.SourceFile, offset: number): TS.Node | undefined {
  let found: TS.Node | undefined;
  const visit = (node: TS.Node): void => {
    if (offset < node.getStart(source) || offset >= node.getEnd()) return;
    if (node.getChildCount(source) === 0 || ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      found = node;
      return;
    }
    node.getChildren(source).forEach(visit);
  };
  visit(source);
  return found;
}
