import { appendFile, mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

/** One event of the audit trail. */
export interface WorkcellEvent {
  readonly seq: number;
  readonly ts: string;
  readonly workerId: string;
  readonly type: string;
  readonly sessionId?: string;
  readonly tool?: string;
  readonly args?: unknown;
  readonly result?: string;
  readonly isError?: boolean;
  readonly durationMs?: number;
  readonly approvalId?: string;
  readonly [key: string]: unknown;
}

/** The event as the API answers it (the stable fields; each type may add its own). */
export const WorkcellEventSchema = z
  .object({
    seq: z.number().int(),
    ts: z.string(),
    workerId: z.string(),
    type: z.string(),
    sessionId: z.string().optional(),
    tool: z.string().optional(),
    args: z.unknown().optional(),
    result: z.string().optional(),
    isError: z.boolean().optional(),
    durationMs: z.number().optional(),
    approvalId: z.string().optional(),
  })
  .catchall(z.unknown());

/** Filters for listing events. */
export interface EventQuery {
  after?: number;
  limit?: number;
  type?: string;
  workerId?: string;
}

const MAX_STRING_CHARS = 2_000;
const REDACTED = "[redacted]";
const MIN_SECRET_CHARS = 4;

/** Replaces every secret in every string of `value` and truncates long strings. Pure. */
export function redactAndTruncate(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") {
    let text = value;
    for (const secret of secrets) if (secret.length >= MIN_SECRET_CHARS) text = text.split(secret).join(REDACTED);
    return text.length > MAX_STRING_CHARS
      ? `${text.slice(0, MAX_STRING_CHARS)}… [${text.length - MAX_STRING_CHARS} more characters]`
      : text;
  }
  if (Array.isArray(value)) return value.map((item) => redactAndTruncate(item, secrets));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactAndTruncate(item, secrets)]));
  }
  return value;
}

/**
 * The audit trail: every event gets a global sequence number, is appended as one JSON line
 * to the worker's `events.jsonl` (so a killed control plane loses nothing already
 * recorded), and is pushed to live subscribers. Secrets are redacted before anything is
 * written.
 */
export class EventLog {
  private seq = 0;
  private readonly listeners = new Set<(event: WorkcellEvent) => void>();
  private readonly tails = new Map<string, Promise<void>>();

  private constructor(
    private readonly dataDir: string,
    private readonly secrets: () => readonly string[],
  ) {}

  /** Opens the log, continuing the sequence after the highest number on disk. */
  static async open(dataDir: string, secrets: () => readonly string[]): Promise<EventLog> {
    const log = new EventLog(dataDir, secrets);
    for (const id of await readdir(path.join(dataDir, "workers")).catch(() => [] as string[])) {
      for (const event of await log.read(id)) log.seq = Math.max(log.seq, event.seq);
    }
    return log;
  }

  /** Records an event; resolves once it is on disk. */
  append(workerId: string, type: string, data: Record<string, unknown> = {}): Promise<WorkcellEvent> {
    const event = {
      ...(redactAndTruncate(data, this.secrets()) as Record<string, unknown>),
      seq: ++this.seq,
      ts: new Date().toISOString(),
      workerId,
      type,
    } as WorkcellEvent;
    const file = this.fileOf(workerId);
    const previous = this.tails.get(workerId) ?? Promise.resolve();
    const written = previous.then(async () => {
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      await appendFile(file, `${JSON.stringify(event)}\n`, { mode: 0o600 });
    });
    this.tails.set(
      workerId,
      written.catch(() => undefined),
    );
    return written.then(() => {
      for (const listener of this.listeners) listener(event);
      return event;
    });
  }

  /** A worker's events in order, filtered and paged. */
  async list(workerId: string, query: EventQuery = {}): Promise<WorkcellEvent[]> {
    await this.tails.get(workerId);
    return this.filter(await this.read(workerId), query);
  }

  /** Events of every worker after `after`, in sequence order (for resuming a stream). */
  async listAll(query: EventQuery = {}): Promise<WorkcellEvent[]> {
    const ids =
      query.workerId !== undefined
        ? [query.workerId]
        : await readdir(path.join(this.dataDir, "workers")).catch(() => [] as string[]);
    const all = (await Promise.all(ids.map((id) => this.list(id)))).flat().sort((a, b) => a.seq - b.seq);
    return this.filter(all, query);
  }

  /** Live events; returns the unsubscribe function. */
  subscribe(listener: (event: WorkcellEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private filter(events: WorkcellEvent[], query: EventQuery): WorkcellEvent[] {
    const selected = events.filter(
      (event) =>
        event.seq > (query.after ?? 0) &&
        (query.type === undefined || event.type === query.type) &&
        (query.workerId === undefined || event.workerId === query.workerId),
    );
    return query.limit === undefined ? selected : selected.slice(0, query.limit);
  }

  private async read(workerId: string): Promise<WorkcellEvent[]> {
    const text = await readFile(this.fileOf(workerId), "utf8").catch(() => "");
    const events: WorkcellEvent[] = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const event = JSON.parse(line) as WorkcellEvent;
        if (typeof event.seq === "number") events.push(event);
      } catch {
        // A line cut by a crash mid-write is skipped; every complete line stands.
      }
    }
    return events;
  }

  private fileOf(workerId: string): string {
    return path.join(this.dataDir, "workers", workerId, "events.jsonl");
  }
}
