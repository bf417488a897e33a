import { z } from "zod";

/** One recorded transition of a task. */
export const TransitionSchema = z.object({
  from_stage: z.string(),
  to_stage: z.string(),
  prompt: z.string().optional(),
  commit_sha: z.string().optional(),
  quality_results: z.unknown().optional(),
  created_at: z.string(),
});
export type Transition = z.infer<typeof TransitionSchema>;

/** A coding task driven through the BDD pipeline. */
export const TaskSchema = z.object({
  id: z.string(),
  workerId: z.string(),
  goal: z.string(),
  type: z.enum(["greenfield", "bugfix", "change"]),
  position: z.number().int().min(0),
  /** The last quality checks failed and block forward progress. */
  blocked: z.boolean(),
  status: z.enum(["active", "complete"]),
  transitions: z.array(TransitionSchema),
  commits: z.number().int(),
  /** Line coverage after implementation, for the refactor check. */
  coverage: z.number().optional(),
  summary: z.string().optional(),
  createdAt: z.string(),
  completedAt: z.string().optional(),
});
export type Task = z.infer<typeof TaskSchema>;
