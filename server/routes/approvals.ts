import { Hono } from "hono";
import { z } from "zod";
import { DecisionInputSchema } from "../../runtime/approvals/approval.js";
import type { ApprovalQueue } from "../../runtime/approvals/approval-queue.js";
import { AppError } from "../../runtime/errors/app-error.js";
import { describeIssues, parseJsonBody } from "../validate.js";

/** The query of `GET /v1/approvals`. */
export const ApprovalListQuerySchema = z
  .object({
    status: z.enum(["pending", "approved", "rejected", "edited", "timed_out", "cancelled", "abandoned"]).optional(),
    workerId: z.string().regex(/^[0-9a-f]{8}$/, "must be a worker id (8 hex characters)").optional(),
  })
  .strict();

/** `/v1/approvals`: the operator's queue of gated calls and permission prompts. */
export function createApprovalRoutes(queue: ApprovalQueue): Hono {
  const app = new Hono();

  app.get("/", async (c) => {
    const query = ApprovalListQuerySchema.safeParse(c.req.query());
    if (!query.success) throw new AppError("invalid_input", `Invalid query: ${describeIssues(query.error)}.`);
    return c.json({ approvals: await queue.list(query.data) });
  });

  app.get("/:id", async (c) => c.json(await queue.get(c.req.param("id"))));

  app.post("/:id", async (c) => {
    const decision = await parseJsonBody(c, DecisionInputSchema);
    return c.json(await queue.decide(c.req.param("id"), decision));
  });

  return app;
}
