import type * as TS from "typescript";
import { ToolInputError } from "../tool-result.js";
import type { Position, TsProject } from "./ts-project.js";

/** One place in the code, with its line for context. */
export interface CodeLocation {
  path: string;
  line: number;
  column: number;
  text: string;
  kind?: string;
  name?: string;
  isDefinition?: boolean;
}

/** The navigation operations code_navigate offers. */
export type NavigateOperation =
  | "definition"
  | "references"
  | "implementations"
  | "callers"
  | "type_definition"
  | "document_symbols"
  | "workspace_symbols";

/** Runs one navigation operation at `at` (or over the project for workspace_symbols). */
export function navigate(
  project: TsProject,
  operation: NavigateOperation,
  at: Position | undefined,
  query: string | undefined,
  limit: number,
): CodeLocation[] {
  const { service } = project;
  const spans = (items: readonly { fileName: string; textSpan: TS.TextSpan }[] | undefined) =>
    (items ?? []).map((item) => project.location(item.fileName, item.textSpan.start));
  switch (operation) {
    case "workspace_symbols": {
      if (query === undefined)
        throw new ToolInputError(
          "workspace_symbols needs symbolName: the name (or a prefix or camel-case abbreviation) to look for.",
        );
      return service
        .getNavigateToItems(query, limit * 4)
        .filter((item) => !item.fileName.includes("/node_modules/"))
        .slice(0, limit)
        .map((item) => ({
          ...project.location(item.fileName, item.textSpan.start),
          kind: item.kind,
          name: item.containerName ? `${item.containerName}.${item.name}` : item.name,
        }));
    }
    case "document_symbols": {
      if (at === undefined) throw new ToolInputError("document_symbols needs filePath.");
      const out: CodeLocation[] = [];
      const walk = (item: TS.NavigationTree, container: string | undefined) => {
        for (const child of item.childItems ?? []) {
          if (child.kind === "alias") continue;
          const name = container ? `${container}.${child.text}` : child.text;
          out.push({ ...project.location(at.file, (child.nameSpan ?? child.spans[0]!).start), kind: child.kind, name });
          walk(child, name);
        }
      };
      walk(service.getNavigationTree(at.file), undefined);
      return out.slice(0, limit);
    }
  }
  const { file, offset } = need(at, operation);
  switch (operation) {
    case "definition":
      return spans(service.getDefinitionAtPosition(file, offset)).slice(0, limit);
    case "type_definition":
      return spans(service.getTypeDefinitionAtPosition(file, offset)).slice(0, limit);
    case "implementations":
      return spans(service.getImplementationAtPosition(file, offset)).slice(0, limit);
    case "references": {
      const references = (service.findReferences(file, offset) ?? []).flatMap((symbol) => symbol.references);
      return references.slice(0, limit).map((reference) => ({
        ...project.location(reference.fileName, reference.textSpan.start),
        isDefinition: reference.isDefinition === true,
      }));
    }
    case "callers": {
      const prepared = service.prepareCallHierarchy(file, offset);
      const items = prepared === undefined ? [] : Array.isArray(prepared) ? prepared : [prepared];
      const out: CodeLocation[] = [];
      for (const item of items) {
        for (const call of service.provideCallHierarchyIncomingCalls(item.file, item.selectionSpan.start)) {
          for (const span of call.fromSpans)
            out.push({ ...project.location(call.from.file, span.start), kind: call.from.kind, name: call.from.name });
        }
      }
      return out.slice(0, limit);
    }
  }
}

function need(at: Position | undefined, operation: string): Position {
  if (at === undefined)
    throw new ToolInputError(
      `${operation} needs a symbol: filePath with symbolName or line and column, or symbolName alone to find its declaration.`,
    );
  return at;
}
