import { z } from "zod";
import { ErrorBodySchema } from "../runtime/errors/app-error.js";
import { APPROVAL_OPERATIONS } from "./openapi/approval-operations.js";
import { EVENT_OPERATIONS } from "./openapi/event-operations.js";
import { MCP_OPERATIONS } from "./openapi/mcp-operations.js";
import { META_OPERATIONS } from "./openapi/meta-operations.js";
import type { Operation } from "./openapi/operation.js";
import { PERMISSION_OPERATIONS } from "./openapi/permission-operations.js";
import { POOL_OPERATIONS } from "./openapi/pool-operations.js";
import { TASK_OPERATIONS } from "./openapi/task-operations.js";
import { WORKER_OPERATIONS } from "./openapi/worker-operations.js";

/** Every route the control plane serves. The coverage test holds this list to `app.routes`. */
export const OPERATIONS: readonly Operation[] = [
  ...META_OPERATIONS,
  ...WORKER_OPERATIONS,
  ...PERMISSION_OPERATIONS,
  ...EVENT_OPERATIONS,
  ...APPROVAL_OPERATIONS,
  ...POOL_OPERATIONS,
  ...TASK_OPERATIONS,
  ...MCP_OPERATIONS,
];

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
