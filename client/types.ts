/**
 * What the client sends and gets back, named for its users. Each comes from the zod schema
 * the control plane validates with; the imports are type-only and vanish from the built file.
 */
import type { z } from "zod";
import type { ApprovalSchema, DecisionInputSchema } from "../runtime/approvals/approval.js";
import type { ErrorCode } from "../runtime/errors/app-error.js";
import type { WorkcellEventSchema } from "../runtime/events/event-log.js";
import type { PermissionsInputSchema, PolicySchema } from "../runtime/permissions/policy.js";
import type { TaskSchema } from "../runtime/pipeline/task.js";
import type { DiffResultSchema, ExecRequestSchema, ExecResultSchema } from "../runtime/workers/exec-request.js";
import type { ExportResultSchema } from "../runtime/workers/export-branch.js";
import type { CreateWorkerInputSchema, PublicWorkerSchema, RemoveResultSchema } from "../runtime/workers/worker.js";
import type { PoolInputSchema, PoolStatusSchema } from "../runtime/workers/worker-pools.js";

export type SpawnInput = z.input<typeof CreateWorkerInputSchema>;
export type WorkerInfo = z.output<typeof PublicWorkerSchema>;
export type ExecInput = z.input<typeof ExecRequestSchema>;
export type ExecResult = Omit<z.output<typeof ExecResultSchema>, "audit">;
export type DiffResult = z.output<typeof DiffResultSchema>;
export type ExportResult = z.output<typeof ExportResultSchema>;
export type Policy = z.output<typeof PolicySchema>;
export type PermissionsInput = z.input<typeof PermissionsInputSchema>;
export type Approval = z.output<typeof ApprovalSchema>;
export type ApprovalStatus = Approval["status"];
export type Decision = z.input<typeof DecisionInputSchema>;
export type WorkcellEvent = z.output<typeof WorkcellEventSchema>;
export type Task = z.output<typeof TaskSchema>;
export type RemoveResult = z.output<typeof RemoveResultSchema>;
export type PoolStatus = z.output<typeof PoolStatusSchema>;
export type PoolInput = z.input<typeof PoolInputSchema>;
export type { ErrorCode };
