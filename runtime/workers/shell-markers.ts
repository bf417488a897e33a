import { SHELL_REPORT_INTRODUCER, ShellLineReportSchema, type ShellLineReport } from "../../contract/control.js";

/**
 * The reports an interactive shell writes into its terminal stream (see the tools'
 * interactive-shell.ts): `ESC ] SHELL_REPORT_INTRODUCER <nonce> ; <base64 JSON> BEL`. The first
 * one carries only the nonce bash drew at start; later ones a checked line. They come
 * from the sandbox, so each is validated, and one with another nonce is dropped.
 */
const PREFIX = Buffer.from(`\u001b]${SHELL_REPORT_INTRODUCER}`);
const END = 0x07;
/** A marker longer than this is not one of ours: pass it through as output. */
const MAX_MARKER_BYTES = 512 * 1024;

/**
 * Takes the reports out of a terminal stream, chunk by chunk: a marker split across chunks
 * is held back until it completes. Not thread-safe; one per shell.
 */
export class ShellMarkerFilter {
  private held: Buffer = Buffer.alloc(0);
  private nonce: string | undefined;

  /** The output to show for `chunk`, with the reports it completed. */
  push(chunk: Buffer): { output: Buffer; reports: ShellLineReport[] } {
    let data = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    this.held = Buffer.alloc(0);
    const output: Buffer[] = [];
    const reports: ShellLineReport[] = [];
    for (;;) {
      const start = data.indexOf(PREFIX);
      if (start === -1) {
        // Hold back a tail that could be the start of a marker.
        const keep = partialPrefixLength(data);
        output.push(data.subarray(0, data.length - keep));
        this.held = Buffer.from(data.subarray(data.length - keep));
        break;
      }
      output.push(data.subarray(0, start));
      const end = data.indexOf(END, start + PREFIX.length);
      if (end === -1) {
        if (data.length - start > MAX_MARKER_BYTES) {
          output.push(data.subarray(start));
        } else this.held = Buffer.from(data.subarray(start));
        break;
      }
      const report = this.accept(data.subarray(start + PREFIX.length, end).toString("latin1"));
      if (report !== undefined) reports.push(report);
      data = data.subarray(end + 1);
    }
    return { output: Buffer.concat(output), reports };
  }

  /** What is still held back (a marker cut off by the end of the stream), as output. */
  flush(): Buffer {
    const rest = this.held;
    this.held = Buffer.alloc(0);
    return rest;
  }

  private accept(body: string): ShellLineReport | undefined {
    const separator = body.indexOf(";");
    if (separator === -1) return undefined;
    const nonce = body.slice(0, separator);
    const payload = body.slice(separator + 1);
    if (this.nonce === undefined) {
      // The first marker fixes the nonce: bash sends it before it reads any input.
      if (payload === "" && /^\d{1,40}$/.test(nonce)) this.nonce = nonce;
      return undefined;
    }
    if (nonce !== this.nonce || payload === "") return undefined;
    try {
      const parsed = ShellLineReportSchema.safeParse(JSON.parse(Buffer.from(payload, "base64").toString("utf8")));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
}

/** How many bytes at the end of `data` are a proper prefix of the marker's start. */
function partialPrefixLength(data: Buffer): number {
  for (let length = Math.min(PREFIX.length - 1, data.length); length > 0; length -= 1) {
    if (data.subarray(data.length - length).equals(PREFIX.subarray(0, length))) return length;
  }
  return 0;
}
