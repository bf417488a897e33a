import { z } from "zod";
import { ApprovalSettingsInputSchema, ApprovalSettingsSchema } from "../approvals/approval.js";
import { PermissionsInputSchema, PolicySchema } from "../permissions/policy.js";
import { AuditEntrySchema } from "../permissions/suggest.js";
import { GateStateSchema } from "../../contract/gate.js";

/** Lifecycle states a worker can be in. */
export const WorkerStatusSchema = z.enum(["starting", "running", "stopped", "failed", "removed"]);
export type WorkerStatus = z.infer<typeof WorkerStatusSchema>;

/** Resource limits of a worker's container. */
export const ResourcesSchema = z
  .object({
    cpus: z.number().positive().max(64).optional().describe("CPU cores the container may use"),
    memoryMb: z.number().int().min(64).max(1_048_576).optional().describe("Memory limit in MB (swap included)"),
    pids: z.number().int().min(16).max(1_000_000).optional().describe("Maximum number of processes"),
    tmpMb: z.number().int().min(1).max(65_536).optional().describe("Size of the /tmp tmpfs in MB"),
    diskMb: z
      .number()
      .int()
      .min(10)
      .max(10_485_760)
      .optional()
      .describe("Workspace size limit in MB: writes past it fail with ENOSPC (see diskEnforcement)"),
    timeoutMs: z
      .number()
      .int()
      .min(1_000)
      .optional()
      .describe("Lifetime limit: the worker is stopped this long after it starts"),
    idleTimeoutMs: z
      .number()
      .int()
      .min(1_000)
      .optional()
      .describe("The worker is stopped after no tool call or exec for this long"),
  })
  .strict();
export type Resources = z.infer<typeof ResourcesSchema>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A program run inside the worker's container with a prompt on stdin. */
export const AgentSpecSchema = z
  .object({
    command: z.array(z.string().min(1)).min(1).max(64).describe("argv of the agent program, run inside the worker"),
    env: z
      .record(z.string().regex(ENV_NAME), z.string().max(32_768))
      .optional()
      .describe("Extra environment for the agent"),
  })
  .strict();
export type AgentSpec = z.infer<typeof AgentSpecSchema>;

/** What a worker is created from (the body of a creation request). */
export const CreateWorkerInputSchema = z
  .object({
    repo: z
      .string()
      .min(1)
      .refine(
        (value) => value.startsWith("/"),
        "must be an absolute path to a git repository on the control plane's host",
      ),
    baseRef: z.string().min(1).max(256).optional(),
    name: z
      .string()
      .max(40)
      .regex(KEBAB, "must be kebab-case (lowercase letters, digits and single dashes), e.g. fix-login")
      .optional(),
    image: z.string().min(1).max(256).optional(),
    runtime: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+$/, "must be the name of an OCI runtime the engine knows, e.g. runsc")
      .max(64)
      .optional(),
    permissions: PermissionsInputSchema.optional(),
    approvals: ApprovalSettingsInputSchema.optional(),
    model: z.string().min(1).max(200).optional().describe("The model the worker's agent should use (WORKCELL_MODEL)"),
    agent: AgentSpecSchema.optional(),
    resources: ResourcesSchema.optional(),
    env: z
      .record(z.string().regex(ENV_NAME, "env names must match [A-Za-z_][A-Za-z0-9_]*"), z.string().max(32_768))
      .optional(),
  })
  .strict();
export type CreateWorkerInput = z.infer<typeof CreateWorkerInputSchema>;

/** A worker as stored and as answered by the API (the contract's fields plus a few more). */
export const WorkerSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: WorkerStatusSchema,
  repo: z.string(),
  branch: z.string(),
  baseRef: z.string(),
  baseCommit: z.string(),
  workspace: z.string(),
  image: z.string(),
  /** The OCI runtime the worker runs under (runsc, runc, ...); absent only in records from before it was recorded. */
  runtime: z.string().optional(),
  /** Where the runtime came from: the creation request (kept on restart), WORKCELL_RUNTIME, or the default rule (both chosen again at each start). */
  runtimeSource: z.enum(["requested", "configured", "default"]).optional(),
  permissions: PolicySchema,
  /** Which tool calls need a reviewer, and how long a decision may take. */
  approvals: ApprovalSettingsSchema.default({
    tools: [],
    dangerousGit: true,
    timeoutMs: 10 * 60_000,
    onTimeout: "reject",
  }),
  /** What audit mode recorded that enforce mode would have refused. */
  audit: z.array(AuditEntrySchema).default([]),
  /** Set when the container was made from an older policy; applies on the next start. */
  pendingRestart: z.boolean().optional(),
  resources: z.object({
    cpus: z.number(),
    memoryMb: z.number(),
    pids: z.number(),
    tmpMb: z.number(),
    diskMb: z.number().default(10_240),
    timeoutMs: z.number().optional(),
    idleTimeoutMs: z.number().optional(),
  }),
  model: z.string().optional(),
  agent: AgentSpecSchema.optional(),
  /** When the container last started (for timeoutMs). */
  startedAt: z.string().optional(),
  /**
   * How diskMb holds: `image` — the workspace is its own loop-mounted filesystem of that size,
   * so writes past it fail with ENOSPC; `watchdog` — a plain directory measured at intervals,
   * the worker stopped once over. Absent on workers made before images existed (watchdog).
   */
  diskEnforcement: z.enum(["image", "watchdog"]).optional(),
  /** Why the control plane stopped the worker on its own (disk, lifetime, idleness). */
  stopReason: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  containerId: z.string().optional(),
  /** The state the operator asked for; a container not in it is reported as failed. */
  desired: z.enum(["running", "stopped"]),
  /** Env vars given to the container; values never appear in API answers. */
  env: z.record(z.string(), z.string()),
  objectDirs: z.array(z.string()),
  /** What each granted host path was when the grant was accepted (checked before every create and start). */
  bindSources: z.array(z.object({ path: z.string(), dev: z.string(), ino: z.string() })).optional(),
  error: z.string().optional(),
  lastExport: z.object({ branch: z.string(), commit: z.string(), at: z.string() }).optional(),
  /** The finish gate's memory, reported by the worker's tools and handed back to each MCP session. */
  gate: GateStateSchema.optional(),
});
export type Worker = z.infer<typeof WorkerSchema>;

/** A worker as the API answers it: the stored fields minus what never leaves the control plane, plus derived ones. */
export const PublicWorkerSchema = WorkerSchema.omit({
  desired: true,
  objectDirs: true,
  bindSources: true,
  env: true,
  gate: true,
  audit: true,
  agent: true,
}).extend({
  mcpUrl: z.string(),
  envNames: z.array(z.string()),
  network: z.enum(["none", "proxied", "bridged"]),
  agent: z.object({ command: z.array(z.string()), envNames: z.array(z.string()) }).optional(),
  task: GateStateSchema.shape.task.optional(),
  validation: z.object({ validated: z.boolean(), consecutiveFailures: z.number() }).optional(),
});

/** What removing a worker answers: the workspace path only when it was kept. */
export const RemoveResultSchema = z.object({
  id: z.string(),
  status: z.literal("removed"),
  workspace: z.string().optional(),
});
export type RemoveResult = z.infer<typeof RemoveResultSchema>;
