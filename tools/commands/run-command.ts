import { z } from "zod";
import { resolveInside } from "../fs/resolve-inside.js";
import { runProcess, type RunResult } from "../shell/run-process.js";

/** The request the control plane sends on stdin for `workcell-tools run`. */
export const RunRequestSchema = z.object({
  command: z.union([z.string().min(1), z.array(z.string()).min(1)]),
  cwd: z.string().optional(),
  timeoutMs: z.number().int().positive(),
  maxOutputBytes: z.number().int().positive(),
  env: z.record(z.string(), z.string()).optional(),
});

/**
 * Runs one command for the control plane's exec endpoint: confined cwd, process-group
 * kill on timeout, capped output. Always answers one JSON line on stdout.
 */
export async function runCommand(root: string, requestJson: string): Promise<RunResult | { error: string }> {
  const parsed = RunRequestSchema.safeParse(JSON.parse(requestJson));
  if (!parsed.success) return { error: `invalid run request: ${parsed.error.message}` };
  const request = parsed.data;
  let cwd: string;
  try {
    cwd = (await resolveInside(root, request.cwd ?? ".")).absolute;
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  return runProcess({
    command: request.command,
    cwd,
    timeoutMs: request.timeoutMs,
    maxOutputBytes: request.maxOutputBytes,
    ...(request.env === undefined ? {} : { env: request.env }),
  });
}
