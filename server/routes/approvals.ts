import { Hono } from "hono";
import { z } from "zod";
import { DecisionInputSchema } from "../../runtime/approvals/approval.js";
import type { ApprovalQueue } from "../../runtime/approvals/approval-queue.js";
import { parseJsonBody, parseQuery, WORKER_ID } from "../validate.js";

/** The query of `GET /v1/approvals`. */
export const ApprovalListQuerySchema = z
  .object({
    status: z.enum(["pending", "approved", "rejected", "edited", "timed_out", "cancelled", "abandoned"]).optional(),
    workerId: z.string().regex(WORKER_ID, "must be a worker id (8 hex characters)").optional(),
  })
  .strict();

/** `/v1/approvals`: the operator's queue of gated calls and permission prompts. */
export function createApprovalRoutes(queue: ApprovalQueue): Hono {
  const app = new Hono();

  app.get("/", async (c) => {
    return c.json({ approvals: await queue.list(parseQuery(c.req.query(), ApprovalListQuerySchema)) });
  });

  app.get("/:id", async (c) => c.json(await queue.get(c.req.param("id"))));

  app.post("/:id", async (c) => {
    const decision = await parseJsonBody(c, DecisionInputSchema);
    return c.json(await queue.decide(c.req.param("id"), decision));
  });

  return app;
}
