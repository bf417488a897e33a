import { z } from "zod";
import type { RunResult } from "../../contract/control.js";

/** Default and ceiling of an exec's timeout. */
export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
export const MAX_EXEC_TIMEOUT_MS = 60 * 60_000;
/** Bytes of each stream `exec` answers with before cutting. */
export const DEFAULT_EXEC_MAX_OUTPUT_BYTES = 100 * 1024;

/** What an exec asks for: the command, where, how long, with which variables. */
export const ExecRequestSchema = z
  .object({
    command: z.union([
      z.string().min(1, "must not be empty"),
      z.array(z.string()).min(1, "must hold at least the program to run"),
    ]),
    cwd: z.string().min(1).optional(),
    timeoutMs: z.number().int().min(1).max(MAX_EXEC_TIMEOUT_MS).optional(),
    env: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "env names must match [A-Za-z_][A-Za-z0-9_]*"), z.string())
      .optional(),
  })
  .strict();
export type ExecRequest = z.infer<typeof ExecRequestSchema>;

// What the in-container runner answers, and what `exec` returns less its audit entries; and
// a worker's diff, which the container computes: the contract's.
export { DiffResultSchema, RunResultSchema as ExecResultSchema, type DiffResult } from "../../contract/control.js";

/** What an exec answers: the run's result without what audit mode recorded. */
export type ExecResponse = Omit<RunResult, "audit">;

/** What an export asks for: the branch to export to, if not the worker's own. */
export const ExportRequestSchema = z.object({ branch: z.string().min(1).max(200).optional() }).strict();
