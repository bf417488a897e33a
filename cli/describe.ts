/** The argument most worth showing for a tool call or an approval, as one short line. Pure. */
export function summarizeArgs(args: unknown, maxChars = 80): string {
  if (args === undefined || args === null) return "";
  if (typeof args !== "object") return clip(String(args), maxChars);
  const record = args as Record<string, unknown>;
  for (const key of ["command", "path", "filePath", "pattern", "message", "files", "symbolName", "url"]) {
    const value = record[key];
    if (value === undefined) continue;
    return clip(
      `${key}=${Array.isArray(value) ? value.join(" ") : typeof value === "string" ? value : JSON.stringify(value)}`,
      maxChars,
    );
  }
  return clip(JSON.stringify(record), maxChars);
}

/** What one event of a worker's log says, on one line: its time, type, and what happened. Pure. */
export function describeEvent(event: Readonly<Record<string, unknown>>): string {
  const text = (key: string) =>
    typeof event[key] === "string" && event[key] !== "" ? (event[key] as string) : undefined;
  const firstLine = (value: string | undefined) =>
    value === undefined ? undefined : clip(value.split("\n").find((line) => line.trim() !== "") ?? "", 120);
  const duration = typeof event.durationMs === "number" ? ` (${event.durationMs} ms)` : "";
  const parts: string[] = [String(event.ts ?? ""), String(event.type ?? "")];
  switch (event.type) {
    case "exec": {
      const command = Array.isArray(event.command) ? event.command.join(" ") : String(event.command ?? "");
      parts.push(
        `${clip(command, 100)} → exit ${event.exitCode ?? "none"}${event.timedOut === true ? ", timed out" : ""}${duration}`,
      );
      if (event.isError === true && firstLine(text("result"))) parts.push(`: ${firstLine(text("result"))}`);
      break;
    }
    case "shell_command":
      parts.push(
        `${clip(String(event.command ?? ""), 100)}${event.allowed === false ? ` → refused: ${firstLine(text("message")) ?? ""}` : ""}`,
      );
      break;
    case "shell_closed":
      parts.push(
        `exit ${event.exitCode ?? "none"} after ${event.lines ?? 0} line${event.lines === 1 ? "" : "s"}${duration}`,
      );
      break;
    case "tool_call":
      parts.push(`${String(event.tool ?? "?")} ${summarizeArgs(event.args)}`.trimEnd() + duration);
      if (event.isError === true && firstLine(text("result"))) parts.push(`: ${firstLine(text("result"))}`);
      break;
    case "status_changed":
      parts.push(
        `${String(event.from ?? "?")} → ${String(event.to ?? "?")}${text("error") ? `: ${firstLine(text("error"))}` : ""}`,
      );
      break;
    default: {
      const detail =
        text("message") ??
        text("reason") ??
        text("summary") ??
        text("error") ??
        (typeof event.tool === "string" ? event.tool : undefined);
      if (detail !== undefined) parts.push(firstLine(detail) ?? "");
    }
  }
  return parts
    .filter((part) => part !== "")
    .join(" ")
    .replace(/ : /g, ": ");
}

/** The known flag closest to an unknown one (at most two edits away), for a "did you mean". Pure. */
export function suggestFlag(unknown: string, known: readonly string[]): string | undefined {
  const name = unknown.replace(/^-+/, "").split("=")[0] ?? "";
  let best: { flag: string; distance: number } | undefined;
  for (const flag of known) {
    const distance = editDistance(name, flag);
    if (
      distance <= Math.min(2, Math.max(1, Math.floor(flag.length / 3))) &&
      (best === undefined || distance < best.distance)
    )
      best = { flag, distance };
  }
  return best === undefined ? undefined : `--${best.flag}`;
}

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, index) => index)];
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const up = rows[i - 1] as number[];
      let best = Math.min((up[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (up[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] ?? 0) + 1);
      row[j] = best;
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] ?? 0;
}

function clip(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}
