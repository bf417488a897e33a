import { AccessControl, PermissionDeniedError } from "../permissions/access-control.js";
import { readOomKills } from "../shell/oom-kills.js";
import { runProcess } from "../shell/run-process.js";
import { RunRequestSchema, type RunResult } from "../../contract/control.js";
import type { ControlFailure } from "../../contract/sandbox-error.js";

/** What `run` answers: the result, or a failure whose code the control plane maps to an HTTP status. */
export type RunAnswer = RunResult | ControlFailure;

/**
 * Runs one command for the control plane's exec endpoint: policy-checked program and cwd,
 * process-group kill on timeout, capped output. Always answers one JSON value.
 */
export async function runCommand(
  root: string,
  requestJson: string,
  access = new AccessControl(root),
): Promise<RunAnswer> {
  const parsed = RunRequestSchema.safeParse(JSON.parse(requestJson));
  if (!parsed.success) return { error: `invalid run request: ${parsed.error.message}` };
  const request = parsed.data;
  let cwd: string;
  try {
    cwd = (await access.resolve(request.cwd ?? ".", "read")).absolute;
    await access.checkCommand(request.command);
  } catch (error) {
    if (error instanceof PermissionDeniedError) return { error: error.message, code: "permission_denied" };
    return { error: error instanceof Error ? error.message : String(error) };
  }
  const oomBefore = readOomKills();
  const result = await runProcess({
    command: request.command,
    cwd,
    timeoutMs: request.timeoutMs,
    maxOutputBytes: request.maxOutputBytes,
    ...(request.env === undefined ? {} : { env: request.env }),
  });
  const oomAfter = readOomKills();
  const oomKilled =
    oomBefore !== undefined &&
    oomAfter !== undefined &&
    oomAfter > oomBefore &&
    result.signal === "SIGKILL" &&
    !result.timedOut;
  return { ...result, audit: access.drainAudit(), oomKilled };
}
