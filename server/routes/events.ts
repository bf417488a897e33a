import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import type { EventLog, WorkcellEvent } from "../../runtime/events/event-log.js";
import { AppError } from "../../runtime/errors/app-error.js";
import { parseQuery, WORKER_ID } from "../validate.js";

const HEARTBEAT_MS = 15_000;

/** The query of both event routes. */
export const EventQuerySchema = z
  .object({
    after: z.coerce.number().int().min(0).optional(),
    limit: z.coerce.number().int().min(1).max(1_000).optional(),
    type: z
      .string()
      .regex(/^[a-z_]+$/, "must be an event type such as tool_call")
      .optional(),
    workerId: z.string().regex(WORKER_ID, "must be a worker id (8 hex characters)").optional(),
  })
  .strict();

/** `GET /v1/workers/:id/events` (paged) and `GET /v1/events` (a resumable SSE stream). */
export function createEventRoutes(events: EventLog, workerExists: (id: string) => Promise<boolean>): Hono {
  const app = new Hono();

  app.get("/workers/:id/events", async (c) => {
    const id = c.req.param("id");
    if (!WORKER_ID.test(id) || !(await workerExists(id))) {
      // Removed workers keep their trail; unknown ids do not exist.
      const trail = WORKER_ID.test(id) ? await events.list(id, { limit: 1 }) : [];
      if (trail.length === 0)
        throw new AppError("not_found", `No worker with id "${id.slice(0, 64)}". List workers with GET /v1/workers.`);
    }
    const query = parseQuery(c.req.query(), EventQuerySchema);
    const limit = query.limit ?? 100;
    const page = await events.list(id, { ...query, limit: limit + 1 });
    const more = page.length > limit;
    const shown = page.slice(0, limit);
    return c.json({ events: shown, next: more ? shown.at(-1)?.seq : null });
  });

  app.get("/events", (c) => {
    const query = parseQuery(c.req.query(), EventQuerySchema);
    const lastEventId = c.req.header("last-event-id");
    const after = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : (query.after ?? 0);
    return streamSSE(c, async (stream) => {
      const pending: WorkcellEvent[] = [];
      let wake: (() => void) | undefined;
      let closed = false;
      const matches = (event: WorkcellEvent) =>
        (query.workerId === undefined || event.workerId === query.workerId) &&
        (query.type === undefined || event.type === query.type);
      const unsubscribe = events.subscribe((event) => {
        if (!matches(event)) return;
        pending.push(event);
        wake?.();
      });
      stream.onAbort(() => {
        closed = true;
        wake?.();
      });
      try {
        let last = after;
        const send = async (event: WorkcellEvent) => {
          if (event.seq <= last) return;
          last = event.seq;
          await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event) });
        };
        for (const event of await events.listAll({
          after,
          ...(query.workerId ? { workerId: query.workerId } : {}),
          ...(query.type ? { type: query.type } : {}),
        }))
          await send(event);
        while (!closed) {
          if (pending.length === 0) {
            const woke = await new Promise<boolean>((resolve) => {
              wake = () => resolve(true);
              setTimeout(() => resolve(false), HEARTBEAT_MS);
            });
            wake = undefined;
            if (!woke && !closed) await stream.write(": keep-alive\n\n");
            continue;
          }
          for (const event of pending.splice(0).sort((a, b) => a.seq - b.seq)) await send(event);
        }
      } finally {
        unsubscribe();
      }
    });
  });

  return app;
}
