import { z } from "zod";
import { WorkcellEventSchema } from "../../runtime/events/event-log.js";
import { EventQuerySchema } from "../routes/events.js";
import type { Operation } from "./operation.js";

/** The event trail: one worker's page of events, and the stream of all. */
export const EVENT_OPERATIONS: readonly Operation[] = [
  {
    method: "get",
    path: "/v1/workers/:id/events",
    id: "listWorkerEvents",
    summary: "A page of one worker's events (also after it was removed).",
    tag: "events",
    query: EventQuerySchema.omit({ workerId: true }),
    ok: { status: 200, schema: z.object({ events: z.array(WorkcellEventSchema), next: z.number().int().nullable() }) },
  },
  {
    method: "get",
    path: "/v1/events",
    id: "streamEvents",
    summary: "All events as a resumable Server-Sent Events stream (send Last-Event-ID to resume).",
    tag: "events",
    query: EventQuerySchema,
    ok: {
      status: 200,
      contentType: "text/event-stream",
      description: "Each message has `id` = seq, `event` = type and `data` = the event as JSON.",
    },
  },
];
