import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { ContainerDriver } from "../docker/container-driver.js";
import { DEFAULT_EXEC_DEADLINE_MS } from "../docker/exec-deadline.js";
import { AppError } from "../errors/app-error.js";
import { admitEnv } from "../permissions/env-grant.js";
import type { AuditSource } from "../permissions/audit-entry.js";
import type { ToolsChannels } from "./tools-channel.js";
import {
  DEFAULT_EXEC_MAX_OUTPUT_BYTES,
  DEFAULT_EXEC_TIMEOUT_MS,
  DiffResultSchema,
  ExecResultSchema,
  type DiffResult,
  type ExecRequest,
  type ExecResponse,
} from "./exec-request.js";
import { exportBranch, type ExportResult } from "./export-branch.js";
import type { Worker } from "./worker.js";
import type { RunRequest } from "../../contract/control.js";
import { deniedMessage } from "../../contract/sandbox-error.js";

/** Time the host waits beyond an exec's own timeout before giving up on the container. */
const EXEC_GRACE_MS = 15_000;
/** How long a diff may take in the container (the default deadline of an exec into it). */
const DIFF_DEADLINE_MS = DEFAULT_EXEC_DEADLINE_MS;
/** Longest an exec waits in the heavy-work queue before it is refused. */
const MAX_ADMISSION_WAIT_MS = 60 * 60_000;

/** What the operations need from the manager. */
export interface OperationContext {
  readonly driver: ContainerDriver;
  /** The workers' control channels (run, diff, kill-marked). */
  readonly channels: ToolsChannels;
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly dataDir: string;
  recordAudit(id: string, entries: readonly unknown[], source: AuditSource): Promise<void>;
  /** Marks values as secrets to redact from events and logs. */
  addSecrets(values: readonly string[]): void;
  /** Waits for a host-wide slot for heavy work, lent for at most `leaseMs`. */
  admit(workerId: string, signal: AbortSignal, leaseMs: number): Promise<() => void>;
  event(id: string, type: string, data?: Record<string, unknown>): Promise<unknown>;
}

/**
 * Runs a command in a running worker through the in-container runner: env names checked
 * against the policy here, the program and cwd checked in the container, timeout and output
 * caps applied there.
 */
export async function execInWorker(
  context: OperationContext,
  worker: Worker,
  containerId: string,
  request: ExecRequest,
): Promise<ExecResponse> {
  const admitted = admitEnv(worker.permissions, request.env ?? {}, {});
  context.addSecrets(Object.values(request.env ?? {}));
  if (admitted.refused.length > 0) {
    if (worker.permissions.mode === "enforce") {
      await context.event(worker.id, "permission_denied", { via: "exec", kind: "env", names: admitted.refused });
      throw new AppError("permission_denied", deniedMessage("env", admitted.refused[0] as string), {
        details: { kind: "env", names: admitted.refused },
      });
    }
    await context.recordAudit(
      worker.id,
      admitted.refused.map((target) => ({ kind: "env", target })),
      "host",
    );
  }
  const timeoutMs = request.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
  const runRequest: RunRequest = {
    ...request,
    env: admitted.env,
    timeoutMs,
    maxOutputBytes: DEFAULT_EXEC_MAX_OUTPUT_BYTES,
  };
  const payload = JSON.stringify(runRequest);
  const release = await context.admit(worker.id, AbortSignal.timeout(MAX_ADMISSION_WAIT_MS), timeoutMs + EXEC_GRACE_MS);
  try {
    const { audit, ...result } = await context.channels.call(containerId, "run", [], ExecResultSchema, {
      input: payload,
      timeoutMs: timeoutMs + EXEC_GRACE_MS,
    });
    if (audit.length > 0) await context.recordAudit(worker.id, audit, "sandbox");
    await context.event(worker.id, "exec", {
      command: request.command,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      oomKilled: result.oomKilled,
      durationMs: result.durationMs,
      result: result.stderr || result.stdout,
      isError: result.exitCode !== 0,
    });
    return result;
  } catch (error) {
    if (error instanceof AppError && error.code === "permission_denied") {
      await context.event(worker.id, "permission_denied", {
        via: "exec",
        command: request.command,
        message: error.message,
      });
    }
    if (error instanceof AppError && error.code === "timeout") {
      throw new AppError(
        "timeout",
        `The command did not finish within ${timeoutMs} ms and the sandbox did not answer in time; it was killed. Check the worker's state.`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    release();
  }
}

/** Everything that changed in the worker since its base, computed inside the container. */
export function diffWorker(context: OperationContext, worker: Worker, containerId: string): Promise<DiffResult> {
  return context.channels.call(containerId, "diff", [worker.baseCommit], DiffResultSchema, {
    timeoutMs: DIFF_DEADLINE_MS,
  });
}

/** Brings the worker's branch into the source repository (see exportBranch). */
export async function exportWorker(
  context: OperationContext,
  worker: Worker,
  containerId: string,
  branch: string | undefined,
  signal?: AbortSignal,
): Promise<ExportResult> {
  const scratch = path.join(context.dataDir, "tmp");
  await mkdir(scratch, { recursive: true, mode: 0o700 });
  const result = await exportBranch(context.driver, containerId, worker, branch ?? worker.branch, scratch, signal);
  await context.event(worker.id, "exported", { branch: result.branch, commit: result.commit });
  return result;
}
