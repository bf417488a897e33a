import { z } from "zod";
import { AuditEntrySchema } from "../permissions/suggest.js";

/** Default and ceiling of `POST /v1/workers/:id/exec` timeouts. */
export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
export const MAX_EXEC_TIMEOUT_MS = 60 * 60_000;
/** Bytes of each stream `exec` answers with before cutting. */
export const DEFAULT_EXEC_MAX_OUTPUT_BYTES = 100 * 1024;

/** The body of `POST /v1/workers/:id/exec`. */
export const ExecRequestSchema = z
  .object({
    command: z.union([
      z.string().min(1, "must not be empty"),
      z.array(z.string()).min(1, "must hold at least the program to run"),
    ]),
    cwd: z.string().min(1).optional(),
    timeoutMs: z.number().int().min(1).max(MAX_EXEC_TIMEOUT_MS).optional(),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "env names must match [A-Za-z_][A-Za-z0-9_]*"), z.string()).optional(),
  })
  .strict();
export type ExecRequest = z.infer<typeof ExecRequestSchema>;

/** What the in-container runner answers, and what `exec` returns. */
export const ExecResultSchema = z.object({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
  truncated: z.boolean(),
  durationMs: z.number(),
  spawnError: z.string().optional(),
  /** The command was killed because the worker's memory limit was exceeded. */
  oomKilled: z.boolean().default(false),
  /** What audit mode recorded in the container (not part of the answer to the client). */
  audit: z.array(AuditEntrySchema).default([]),
});
export type ExecResponse = Omit<z.infer<typeof ExecResultSchema>, "audit">;

/** The answer of `GET /v1/workers/:id/diff`. */
export const DiffResultSchema = z.object({
  baseCommit: z.string(),
  head: z.string(),
  files: z.array(
    z.object({
      path: z.string(),
      status: z.enum(["added", "modified", "deleted", "renamed", "copied", "type_changed"]),
      additions: z.number().int(),
      deletions: z.number().int(),
      oldPath: z.string().optional(),
    }),
  ),
  patch: z.string(),
  truncated: z.boolean(),
});
export type DiffResult = z.infer<typeof DiffResultSchema>;

/** The body of `POST /v1/workers/:id/export`. */
export const ExportRequestSchema = z.object({ branch: z.string().min(1).max(200).optional() }).strict();
