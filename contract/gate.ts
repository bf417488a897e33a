import { z } from "zod";

/** The longest summary `finish` takes, and the longest summary or reason a gate state carries. */
export const MAX_TASK_TEXT = 10_000;

/**
 * The finish gate's memory: what last passed validation, consecutive failures, and how the
 * task ended. The tools server reports it in a result's `_meta` (untrusted: the control
 * plane validates it on arrival), and the control plane hands it back to each new session.
 */
export const GateStateSchema = z.object({
  validatedTree: z
    .string()
    .regex(/^[0-9a-f]{40,64}$/)
    .nullable(),
  failures: z.number().int().min(0).max(1_000_000),
  task: z
    .object({
      status: z.enum(["finished", "failed"]),
      summary: z.string().max(MAX_TASK_TEXT).optional(),
      reason: z.string().max(MAX_TASK_TEXT).optional(),
      at: z.string().max(64),
    })
    .nullable(),
});
export type GateState = z.infer<typeof GateStateSchema>;
