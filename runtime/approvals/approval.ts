import { z } from "zod";
import type { ApprovalAnswer as SentAnswer } from "../../contract/approval.js";

/** The approval settings of a worker (part of what it is created with). */
export const ApprovalSettingsInputSchema = z
  .object({
    tools: z
      .array(z.string().regex(/^[a-z][a-z0-9_]*$/, "must be a tool name such as shell or git_commit"))
      .max(100)
      .optional()
      .describe("Tools that always need approval"),
    dangerousGit: z
      .boolean()
      .optional()
      .describe(
        "Hard reset, clean -f, deleting branches, discarding changes, rebase, stash drop and push need approval (default true)",
      ),
    timeoutMs: z
      .number()
      .int()
      .min(1_000)
      .max(7 * 24 * 60 * 60_000)
      .optional()
      .describe("How long a decision may take (default 10 minutes)"),
    onTimeout: z.enum(["reject", "approve"]).optional().describe("What a timeout decides (default reject)"),
  })
  .strict();
export type ApprovalSettingsInput = z.infer<typeof ApprovalSettingsInputSchema>;

/** Stored settings with defaults filled in. */
export const ApprovalSettingsSchema = z.object({
  tools: z.array(z.string()).default([]),
  dangerousGit: z.boolean().default(true),
  timeoutMs: z.number().default(10 * 60_000),
  onTimeout: z.enum(["reject", "approve"]).default("reject"),
});
export type ApprovalSettings = z.infer<typeof ApprovalSettingsSchema>;

/** The settings a worker gets when it asks for none. */
export function approvalDefaults(): ApprovalSettings {
  return ApprovalSettingsSchema.parse({});
}

/** An approval request and, once decided, its decision. */
export const ApprovalSchema = z.object({
  id: z.string(),
  workerId: z.string(),
  sessionId: z.string().optional(),
  kind: z.enum(["tool", "permission"]),
  tool: z.string(),
  input: z.unknown(),
  description: z.string(),
  permission: z.object({ kind: z.string(), target: z.string() }).optional(),
  status: z.enum(["pending", "approved", "rejected", "edited", "timed_out", "cancelled", "abandoned"]),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().optional(),
  decision: z.enum(["approve", "reject", "edit"]).optional(),
  reason: z.string().optional(),
  scope: z.enum(["once", "worker"]).optional(),
  editedInput: z.unknown().optional(),
});
export type Approval = z.infer<typeof ApprovalSchema>;

/** A reviewer's answer to one approval. */
export const DecisionInputSchema = z
  .object({
    decision: z.enum(["approve", "reject", "edit"]),
    input: z.record(z.string(), z.unknown()).optional().describe("edit: the revised tool input"),
    reason: z.string().max(2_000).optional(),
    scope: z
      .enum(["once", "worker"])
      .optional()
      .describe("Permission prompts: allow this once, or for the rest of the worker's life"),
  })
  .strict()
  .refine((value) => value.decision !== "edit" || value.input !== undefined, {
    message: "an edit needs input: the revised tool arguments",
    path: ["input"],
  });
export type DecisionInput = z.infer<typeof DecisionInputSchema>;

/** What the worker's tools receive. */
export type ApprovalAnswer = SentAnswer & { approvalId: string };
