import { z } from "zod";
import { ApprovalSchema, DecisionInputSchema } from "../runtime/approvals/approval.js";
import { ErrorBodySchema } from "../runtime/errors/app-error.js";
import { WorkcellEventSchema } from "../runtime/events/event-log.js";
import { TaskSchema } from "../runtime/pipeline/task.js";
import { PermissionsInputSchema, PolicySchema } from "../runtime/permissions/policy.js";
import { AuditEntrySchema } from "../runtime/permissions/suggest.js";
import {
  DiffResultSchema,
  ExecRequestSchema,
  ExecResultSchema,
  ExportRequestSchema,
} from "../runtime/workers/exec-request.js";
import { ExportResultSchema } from "../runtime/workers/export-branch.js";
import { CreateWorkerInputSchema, PublicWorkerSchema, RemoveResultSchema } from "../runtime/workers/worker.js";
import { ApprovalListQuerySchema } from "./routes/approvals.js";
import { EventQuerySchema } from "./routes/events.js";
import { RemoveQuerySchema } from "./routes/workers.js";
import { ShellQuerySchema } from "./shell-upgrade.js";
import { PoolInputSchema, PoolStatusSchema } from "../runtime/workers/worker-pools.js";

type Method = "get" | "post" | "patch" | "delete";

/** One operation of the public API, described with the schemas its route validates with. */
interface Operation {
  readonly method: Method;
  /** The Hono path, e.g. `/v1/workers/:id`. */
  readonly path: string;
  readonly id: string;
  readonly summary: string;
  readonly tag: string;
  readonly public?: boolean;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly bodyOptional?: boolean;
  readonly ok: {
    readonly status: number;
    readonly schema?: z.ZodType;
    readonly contentType?: string;
    readonly description?: string;
  };
}

const HealthSchema = z.object({
  ok: z.boolean(),
  docker: z.object({
    available: z.boolean(),
    version: z.string().optional(),
    apiVersion: z.string().optional(),
    runtime: z
      .object({
        runtime: z
          .string()
          .describe("The OCI runtime a worker with the default policy runs under (runsc when the engine offers it)"),
        source: z
          .enum(["requested", "configured", "default"])
          .describe("configured: WORKCELL_RUNTIME; default: runsc when offered, else the engine's default"),
        offered: z.array(z.string()),
        exceptions: z.array(z.string()).describe("Policies that run under another runtime, or are refused, and why"),
      })
      .optional(),
    error: z.string().optional(),
  }),
});
const ExecAnswerSchema = ExecResultSchema.omit({ audit: true });
const PermissionsUpdateSchema = z.object({
  permissions: PolicySchema,
  appliesOnNextStart: z.boolean(),
  message: z.string(),
});
const MCP_NOTE =
  "MCP Streamable HTTP (protocol 2025-06-18): POST JSON-RPC messages, GET opens the server's event stream, DELETE ends the session. Use an MCP client rather than calling it by hand.";

/** Every route the control plane serves. The coverage test holds this list to `app.routes`. */
export const OPERATIONS: readonly Operation[] = [
  {
    method: "get",
    path: "/health",
    id: "getHealth",
    summary: "Whether the control plane and the Docker engine are up (no token needed).",
    tag: "meta",
    public: true,
    ok: { status: 200, schema: HealthSchema },
  },
  {
    method: "get",
    path: "/openapi.json",
    id: "getOpenApi",
    summary: "This document.",
    tag: "meta",
    public: true,
    ok: { status: 200, description: "An OpenAPI 3.1 document." },
  },
  {
    method: "get",
    path: "/docs",
    id: "getDocs",
    summary: "A readable API reference rendered from this document.",
    tag: "meta",
    public: true,
    ok: { status: 200, contentType: "text/html" },
  },
  {
    method: "get",
    path: "/",
    id: "getDashboard",
    summary: "The web dashboard (it signs in with the token).",
    tag: "meta",
    public: true,
    ok: { status: 200, contentType: "text/html" },
  },
  {
    method: "get",
    path: "/dashboard/app.js",
    id: "getDashboardScript",
    summary: "The dashboard's script.",
    tag: "meta",
    public: true,
    ok: { status: 200, contentType: "text/javascript" },
  },
  {
    method: "get",
    path: "/dashboard/style.css",
    id: "getDashboardStyles",
    summary: "The dashboard's styles.",
    tag: "meta",
    public: true,
    ok: { status: 200, contentType: "text/css" },
  },
  {
    method: "post",
    path: "/v1/workers",
    id: "createWorker",
    summary: "Spawn a worker: a container with its own worktree of `repo`.",
    tag: "workers",
    body: CreateWorkerInputSchema,
    ok: { status: 201, schema: PublicWorkerSchema },
  },
  {
    method: "get",
    path: "/v1/workers",
    id: "listWorkers",
    summary: "List workers.",
    tag: "workers",
    ok: { status: 200, schema: z.object({ workers: z.array(PublicWorkerSchema) }) },
  },
  {
    method: "get",
    path: "/v1/workers/:id",
    id: "getWorker",
    summary: "One worker.",
    tag: "workers",
    ok: { status: 200, schema: PublicWorkerSchema },
  },
  {
    method: "delete",
    path: "/v1/workers/:id",
    id: "removeWorker",
    summary: "Remove a worker, its container and (unless kept) its workspace. The event trail stays.",
    tag: "workers",
    query: RemoveQuerySchema,
    ok: { status: 200, schema: RemoveResultSchema },
  },
  {
    method: "post",
    path: "/v1/workers/:id/stop",
    id: "stopWorker",
    summary: "Stop the worker's container; the workspace stays.",
    tag: "workers",
    ok: { status: 200, schema: PublicWorkerSchema },
  },
  {
    method: "post",
    path: "/v1/workers/:id/start",
    id: "startWorker",
    summary: "Start a stopped worker (applies a changed policy).",
    tag: "workers",
    ok: { status: 200, schema: PublicWorkerSchema },
  },
  {
    method: "post",
    path: "/v1/workers/:id/exec",
    id: "execInWorker",
    summary: "Run a command in the worker's container, under its policy.",
    tag: "workers",
    body: ExecRequestSchema,
    ok: { status: 200, schema: ExecAnswerSchema },
  },
  {
    method: "get",
    path: "/v1/workers/:id/shell",
    id: "openShell",
    summary:
      "An interactive bash in the worker, as the sandbox user: send `Connection: Upgrade` and `Upgrade: workcell-shell`. Each line is checked against the run grants as exec checks a command, and recorded (shell_opened, shell_command, shell_closed). After the 101 both sides send frames: a kind byte (0 data, 1 resize with two 16-bit columns and rows, 2 exit with a 32-bit status), a 32-bit big-endian length, the payload.",
    tag: "workers",
    query: ShellQuerySchema,
    ok: { status: 101, description: "Switching Protocols to workcell-shell." },
  },
  {
    method: "get",
    path: "/v1/workers/:id/diff",
    id: "diffWorker",
    summary: "What changed since the base commit.",
    tag: "workers",
    ok: { status: 200, schema: DiffResultSchema },
  },
  {
    method: "post",
    path: "/v1/workers/:id/task",
    id: "startWorkerTask",
    summary:
      "Start a new task on a worker whose task ended: its finish gate starts fresh and its MCP sessions end (409 while the task is open).",
    tag: "workers",
    ok: { status: 200, schema: PublicWorkerSchema },
  },
  {
    method: "post",
    path: "/v1/workers/:id/export",
    id: "exportWorker",
    summary: "Turn the worker's commits into a branch of the source repository.",
    tag: "workers",
    body: ExportRequestSchema,
    bodyOptional: true,
    ok: { status: 200, schema: ExportResultSchema },
  },
  {
    method: "get",
    path: "/v1/workers/:id/permissions",
    id: "getPermissions",
    summary: "The worker's permission policy.",
    tag: "permissions",
    ok: { status: 200, schema: z.object({ permissions: PolicySchema }) },
  },
  {
    method: "patch",
    path: "/v1/workers/:id/permissions",
    id: "updatePermissions",
    summary: "Change the policy; fields left out keep their value.",
    tag: "permissions",
    body: PermissionsInputSchema,
    ok: { status: 200, schema: PermissionsUpdateSchema },
  },
  {
    method: "get",
    path: "/v1/workers/:id/permissions/suggested",
    id: "suggestPermissions",
    summary: "The narrowest policy that covers what audit mode recorded.",
    tag: "permissions",
    ok: {
      status: 200,
      schema: z.object({
        permissions: PolicySchema,
        recorded: z.array(AuditEntrySchema),
        skipped: z.array(AuditEntrySchema.extend({ reason: z.string() })),
      }),
    },
  },
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
  {
    method: "get",
    path: "/v1/pools",
    id: "listPools",
    summary:
      "The warm pools: started containers waiting for default-policy workers, empty or holding a repository's clone.",
    tag: "pools",
    ok: { status: 200, schema: z.object({ pools: z.array(PoolStatusSchema) }) },
  },
  {
    method: "post",
    path: "/v1/pools",
    id: "setRepoPool",
    summary:
      "Keep `size` clones of `repo` ready in started containers (0 ends its pool), until the control plane stops; WORKCELL_POOL_REPOS sets pools at every start. A default-policy spawn of that repository then claims one.",
    tag: "pools",
    body: PoolInputSchema,
    ok: { status: 200, schema: PoolStatusSchema },
  },
  {
    method: "get",
    path: "/v1/tasks",
    id: "listTasks",
    summary: "Pipeline tasks.",
    tag: "tasks",
    ok: { status: 200, schema: z.object({ tasks: z.array(TaskSchema) }) },
  },
  {
    method: "get",
    path: "/v1/tasks/:id",
    id: "getTask",
    summary: "One pipeline task with its transitions.",
    tag: "tasks",
    ok: { status: 200, schema: TaskSchema },
  },
  ...(["post", "get", "delete"] as const).flatMap((method) => [
    {
      method,
      path: "/v1/workers/:id/mcp",
      id: `workerMcp${capitalize(method)}`,
      summary: `The worker's MCP server. ${MCP_NOTE}`,
      tag: "mcp",
      ok: { status: 200, description: "MCP JSON-RPC or an event stream." },
    },
    {
      method,
      path: "/v1/mcp",
      id: `orchestratorMcp${capitalize(method)}`,
      summary: `The orchestrator's MCP server (spawn workers, run pipeline tasks). ${MCP_NOTE}`,
      tag: "mcp",
      ok: { status: 200, description: "MCP JSON-RPC or an event stream." },
    },
  ]),
];

function capitalize(word: string): string {
  return word[0]!.toUpperCase() + word.slice(1);
}

/** `/v1/workers/:id` → `/v1/workers/{id}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, "{$1}");
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    target: "draft-2020-12",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return rest;
}

function parameters(operation: Operation): unknown[] {
  const inPath = [...operation.path.matchAll(/:([A-Za-z_]+)/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string" },
    description: operation.path.startsWith("/v1/workers/") ? "The worker id (8 hex characters)." : "The resource id.",
  }));
  const inQuery = Object.entries(operation.query?.shape ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: !(schema as z.ZodType).safeParse(undefined).success,
    schema: jsonSchema(schema as z.ZodType, "input"),
  }));
  return [...inPath, ...inQuery];
}

const ERROR_RESPONSES = {
  "400": "invalid_input: the request does not match the schema; the message names the field.",
  "401": "unauthorized: missing or wrong bearer token.",
  "403": "permission_denied: the worker's policy or the Host/Origin guard refused.",
  "404": "not_found: no such worker, approval, task or route.",
  "409": "conflict: the resource is not in a state that allows this.",
  "413": "payload_too_large: the body exceeds the configured limit.",
  "503": "docker_unavailable: the Docker engine cannot be reached.",
};

/** The OpenAPI 3.1 document, generated from the schemas the routes validate with. */
export function buildOpenApiDocument(options: { version: string; serverUrl: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) {
    const { ok } = operation;
    const contentType = ok.contentType ?? "application/json";
    const okContent =
      ok.schema !== undefined
        ? { [contentType]: { schema: jsonSchema(ok.schema, "output") } }
        : contentType === "application/json"
          ? undefined
          : { [contentType]: {} };
    const errors = Object.fromEntries(
      Object.entries(ERROR_RESPONSES)
        .filter(([status]) => !operation.public || status === "503")
        .map(([status, description]) => [
          status,
          { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        ]),
    );
    const parameterList = parameters(operation);
    (paths[toOpenApiPath(operation.path)] ??= {})[operation.method] = {
      operationId: operation.id,
      summary: operation.summary,
      tags: [operation.tag],
      ...(operation.public ? { security: [] } : {}),
      ...(parameterList.length > 0 ? { parameters: parameterList } : {}),
      ...(operation.body !== undefined
        ? {
            requestBody: {
              required: !operation.bodyOptional,
              content: { "application/json": { schema: jsonSchema(operation.body, "input") } },
            },
          }
        : {}),
      responses: {
        [String(ok.status)]: {
          description: ok.description ?? "Success.",
          ...(okContent ? { content: okContent } : {}),
        },
        ...errors,
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "workcell control plane",
      version: options.version,
      description:
        "Sandboxed workers for coding agents: one locked-down container per worker, each with its own worktree, driven over MCP. Every /v1 route needs `Authorization: Bearer <token>`.",
    },
    servers: [{ url: options.serverUrl }],
    security: [{ bearer: [] }],
    tags: ["meta", "workers", "pools", "permissions", "events", "approvals", "tasks", "mcp"].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "The token the control plane printed at start (also in its data dir).",
        },
      },
      schemas: { Error: jsonSchema(ErrorBodySchema, "output") },
    },
  };
}
