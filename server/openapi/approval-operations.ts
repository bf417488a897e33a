import { z } from "zod";
import { ApprovalSchema, DecisionInputSchema } from "../../runtime/approvals/approval.js";
import { ApprovalListQuerySchema } from "../routes/approvals.js";
import type { Operation } from "./operation.js";

/** The approval queue: list, read and decide. */
export const APPROVAL_OPERATIONS: readonly Operation[] = [
  {
    method: "get",
    path: "/v1/approvals",
    id: "listApprovals",
    summary: "The approval queue.",
    tag: "approvals",
    query: ApprovalListQuerySchema,
    ok: { status: 200, schema: z.object({ approvals: z.array(ApprovalSchema) }) },
  },
  {
    method: "get",
    path: "/v1/approvals/:id",
    id: "getApproval",
    summary: "One approval.",
    tag: "approvals",
    ok: { status: 200, schema: ApprovalSchema },
  },
  {
    method: "post",
    path: "/v1/approvals/:id",
    id: "decideApproval",
    summary: "Approve, reject or edit a pending approval; the waiting call then proceeds.",
    tag: "approvals",
    body: DecisionInputSchema,
    ok: { status: 200, schema: ApprovalSchema },
  },
];
