/**
 * Keeps the head and the tail of a byte stream within a fixed budget, so a command that
 * prints gigabytes costs bounded memory and the agent still sees how output began and how
 * it ended (where build errors usually are).
 */
export class OutputCollector {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private totalBytes = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  constructor(readonly maxBytes: number) {
    this.headLimit = Math.ceil(maxBytes / 2);
    this.tailLimit = maxBytes - this.headLimit;
  }

  /** Adds a chunk; bytes beyond the head budget roll through the tail window. */
  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailLimit === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailLimit) {
      this.tailBytes -= (this.tail.shift() as Buffer).length;
    }
  }

  /** Total bytes seen, kept or not. */
  get total(): number {
    return this.totalBytes;
  }

  /** Whether bytes were dropped. */
  get truncated(): boolean {
    return this.totalBytes > this.maxBytes;
  }

  /** The kept text, with an explicit marker where bytes were dropped. */
  toText(): string {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (!this.truncated) return Buffer.concat([head, tail]).toString("utf8");
    tail = tail.subarray(tail.length - this.tailLimit);
    const omitted = this.totalBytes - head.length - tail.length;
    return `${head.toString("utf8")}${truncationMarker(omitted, "bytes")}${tail.toString("utf8")}`;
  }
}

/** The marker placed where output was cut, naming how much is missing. */
export function truncationMarker(omitted: number, unit: "bytes" | "characters"): string {
  return `\n[... output truncated: ${omitted} ${unit} omitted ...]\n`;
}

/** Caps text to `maxChars` characters, keeping head and tail around an explicit marker. */
export function capText(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const headChars = Math.ceil(maxChars / 2);
  const tailChars = maxChars - headChars;
  const omitted = text.length - headChars - tailChars;
  return {
    text: `${text.slice(0, headChars)}${truncationMarker(omitted, "characters")}${text.slice(text.length - tailChars)}`,
    truncated: true,
  };
}
