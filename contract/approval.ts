import { z } from "zod";
import { PermissionKindSchema } from "./policy.js";

/**
 * What the worker's tools send with an approval request (the APPROVAL_METHOD's params). It
 * comes from inside the sandbox, so the host validates it and shows nothing in it as its own
 * words: `description` is only the tools' reason, quoted as such.
 */
export const ApprovalParamsSchema = z.object({
  kind: z.enum(["tool", "permission"]),
  tool: z
    .string()
    .max(64)
    .regex(/^([a-z][a-z0-9_]*)?$/, "must be a tool name such as shell or git_commit"),
  input: z.unknown(),
  description: z.string().max(4_000).optional(),
  permission: z.object({ kind: PermissionKindSchema, target: z.string().min(1).max(4_096) }).optional(),
});
export type ApprovalParams = z.infer<typeof ApprovalParamsSchema>;

/** The reviewer's answer as the control plane sends it back to the tools. */
export const ApprovalAnswerSchema = z
  .object({
    decision: z.enum(["approve", "reject", "edit"]),
    input: z.record(z.string(), z.unknown()).optional(),
    reason: z.string().optional(),
    scope: z.enum(["once", "worker"]).optional(),
    approvalId: z.string().optional(),
  })
  .passthrough();
export type ApprovalAnswer = z.infer<typeof ApprovalAnswerSchema>;
