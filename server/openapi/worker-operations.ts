import { z } from "zod";
import {
  DiffResultSchema,
  ExecRequestSchema,
  ExecResultSchema,
  ExportRequestSchema,
} from "../../runtime/workers/exec-request.js";
import { ExportResultSchema } from "../../runtime/workers/export-branch.js";
import { CreateWorkerInputSchema, PublicWorkerSchema, RemoveResultSchema } from "../../runtime/workers/worker.js";
import { RemoveQuerySchema } from "../routes/workers.js";
import { ShellQuerySchema } from "../shell-upgrade.js";
import type { Operation } from "./operation.js";

const ExecAnswerSchema = ExecResultSchema.omit({ audit: true });

/** A worker's lifecycle, exec, shell, diff, task and export routes. */
export const WORKER_OPERATIONS: readonly Operation[] = [
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
];
