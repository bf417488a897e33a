import { appendFile, mkdir } from "node:fs/promises";
import path from "node:path";

/** One entry of a worker's append-only event log. */
export interface WorkerEvent {
  readonly type: string;
  readonly at: string;
  readonly [key: string]: unknown;
}

/** Appends an event as one JSON line to `<workerDir>/events.jsonl`; never rewrites history. */
export async function appendWorkerEvent(workerDir: string, type: string, data: Record<string, unknown> = {}): Promise<void> {
  await mkdir(workerDir, { recursive: true });
  const event: WorkerEvent = { type, at: new Date().toISOString(), ...data };
  await appendFile(path.join(workerDir, "events.jsonl"), `${JSON.stringify(event)}\n`, { mode: 0o600 });
}
