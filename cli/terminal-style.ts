import type { CliContext } from "./command-context.js";

/** `text` in the ANSI colour `code` on a terminal; unchanged when piped. */
export const color = (ctx: CliContext, code: number, text: string): string =>
  ctx.isTty ? `\u001b[${code}m${text}\u001b[0m` : text;

/** A worker's status in its colour: green running, red failed, yellow anything else. */
export const statusColor = (ctx: CliContext, status: string): string =>
  color(ctx, status === "running" ? 32 : status === "failed" ? 31 : 33, status);

/** Rows as aligned columns (colour codes take no width), two spaces apart, without trailing blanks. */
export function table(rows: string[][]): string {
  const widths =
    rows[0]?.map((_, column) =>
      Math.max(...rows.map((row) => (row[column] ?? "").replace(/\u001b\[\d+m/g, "").length)),
    ) ?? [];
  return rows
    .map((row) =>
      row
        .map(
          (cell, column) =>
            cell + " ".repeat(Math.max(0, (widths[column] ?? 0) - cell.replace(/\u001b\[\d+m/g, "").length)),
        )
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
