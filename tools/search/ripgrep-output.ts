/** One line of ripgrep's `--json` output that matters for rendering. */
interface RgEvent {
  type: string;
  data?: {
    path?: { text?: string };
    lines?: { text?: string };
    line_number?: number;
  };
}

/** Matches rendered as `file:line:content`, context as `file-line-content`, capped. */
export interface GrepRendering {
  readonly text: string;
  readonly matches: number;
  readonly capped: boolean;
}

/**
 * Renders ripgrep `--json` output as the familiar `file:line:content` lines (context lines
 * use `-`, and with context, groups are separated by `--`), keeping at most `maxMatches` matches.
 */
export function renderRipgrepJson(jsonLines: string, maxMatches: number, withContext = false): GrepRendering {
  const out: string[] = [];
  let matches = 0;
  let capped = false;
  let lastKey: string | undefined;
  for (const raw of jsonLines.split("\n")) {
    if (raw.trim() === "") continue;
    let event: RgEvent;
    try {
      event = JSON.parse(raw) as RgEvent;
    } catch {
      continue;
    }
    if (event.type !== "match" && event.type !== "context") continue;
    if (event.type === "match") {
      if (matches >= maxMatches) {
        capped = true;
        break;
      }
      matches += 1;
    } else if (matches >= maxMatches) {
      continue;
    }
    const file = (event.data?.path?.text ?? "?").replace(/^\.\//, "");
    const line = event.data?.line_number ?? 0;
    const content = (event.data?.lines?.text ?? "").replace(/\r?\n$/, "");
    if (withContext && lastKey !== undefined && lastKey !== `${file}:${line - 1}`) out.push("--");
    lastKey = `${file}:${line}`;
    out.push(`${file}${event.type === "match" ? ":" : "-"}${line}${event.type === "match" ? ":" : "-"}${content}`);
  }
  return { text: out.join("\n"), matches, capped };
}

/** Sorts and caps a file list; paths are compared as plain strings for a stable order. */
export function capFileList(
  files: readonly string[],
  maxFiles: number,
): { files: string[]; capped: boolean; total: number } {
  const sorted = [...files].filter((file) => file.length > 0).sort();
  return { files: sorted.slice(0, maxFiles), capped: sorted.length > maxFiles, total: sorted.length };
}
