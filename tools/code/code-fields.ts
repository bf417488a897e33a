import { z } from "zod";

/** How a code tool's call names a symbol: a file and a name, a file and a position, or a name alone. */
export interface SymbolArgs {
  readonly filePath?: string | undefined;
  readonly symbolName?: string | undefined;
  readonly line?: number | undefined;
  readonly column?: number | undefined;
}

/** The file argument the code tools share. */
export const filePathField = z.string().min(1).describe("File relative to /workspace");

/** The symbol-name argument the code tools share. */
export const symbolField = z
  .string()
  .min(1)
  .max(200)
  .describe("The symbol's name (its declaration in filePath is used, else its first use there)");

/** The 1-based line argument the code tools share. */
export const lineField = z
  .number()
  .int()
  .min(1)
  .describe("1-based line of the symbol (with column, instead of symbolName)");

/** The 1-based column argument the code tools share. */
export const columnField = z.number().int().min(1).describe("1-based column of the symbol");
