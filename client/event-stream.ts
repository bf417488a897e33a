import { query, type Endpoint } from "./request.js";
import type { WorkcellEvent } from "./types.js";
import { errorFromResponse, networkError } from "./workcell-error.js";

export interface EventFilter {
  /** Only events with a larger sequence number. */
  readonly after?: number;
  readonly type?: string;
  readonly workerId?: string;
}

/**
 * The live event stream (past events after `after` first). It resumes after a dropped
 * connection from the last event seen, and ends when `signal` aborts.
 */
export async function* watchEvents(
  endpoint: Endpoint,
  filter: EventFilter = {},
  signal?: AbortSignal,
): AsyncGenerator<WorkcellEvent> {
  let after = filter.after ?? 0;
  while (signal?.aborted !== true) {
    let response: Response;
    try {
      response = await endpoint.fetch(`${endpoint.url}/v1/events${query({ ...filter, after })}`, {
        headers: { ...endpoint.headers, accept: "text/event-stream" },
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) return;
      throw networkError(endpoint.url, error);
    }
    if (!response.ok || response.body === null) throw await errorFromResponse(response);
    try {
      for await (const event of parseEventStream(response.body)) {
        after = event.seq;
        yield event;
      }
    } catch (error) {
      if (signal?.aborted) return;
      if (!(error instanceof TypeError)) throw error;
      // A dropped connection: reconnect and resume after the last event.
    }
  }
}

/** Parses a text/event-stream body into the JSON of each message's data. */
async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<WorkcellEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n");
      if (data !== "") yield JSON.parse(data) as WorkcellEvent;
    }
  }
}
