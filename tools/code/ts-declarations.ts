import type * as TS from "typescript";
import type { TypeScript } from "./ts-compiler.js";

/** Declaration files, which a name lookup in the project passes over. */
export const DECLARATION_FILE = /\.d\.[cm]?ts$/;

const KIND_RANK = ["class", "interface", "type", "enum", "function", "const", "let", "var", "method", "property"];

/** Whether `node` declares the name it carries (rather than using it). */
export function isDeclaration(ts: TypeScript, node: TS.Node): boolean {
  return (
    ts.isClassDeclaration(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isMethodSignature(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isPropertySignature(node) ||
    ts.isVariableDeclaration(node) ||
    ts.isParameter(node) ||
    ts.isModuleDeclaration(node) ||
    ts.isEnumMember(node) ||
    ts.isGetAccessor(node) ||
    ts.isSetAccessor(node)
  );
}

/** How strongly a navigation item's kind claims a name: types and functions before variables and members. */
export function rankKind(kind: string): number {
  const index = KIND_RANK.indexOf(kind);
  return index === -1 ? KIND_RANK.length : index;
}
