import type { EventLog } from "../../runtime/events/event-log.js";
import type { Workers } from "../../runtime/workers/workers.js";
import { AUDIT_META_KEY, GATE_META_KEY } from "../../contract/wire.js";
import { summarizeToolCall, type Logger } from "../logger.js";
import type { ToolCallRecord } from "../mcp/tool-call-log.js";

function readToolReports(message: unknown): { gate: unknown; audit: unknown } {
  const meta = (message as { result?: { _meta?: Record<string, unknown> } }).result?._meta;
  return { gate: meta?.[GATE_META_KEY], audit: meta?.[AUDIT_META_KEY] };
}

/** Logs each finished tool call and records it, and a permission denial, in the worker's events. */
export function createToolCallReporter(
  logger: Logger,
  events: EventLog,
  log: (message: string) => void,
): (call: ToolCallRecord) => void {
  return (call) => {
    const summary = summarizeToolCall(call.tool, call.args, call.result, call.durationMs);
    if (call.isError) logger.warn(summary, { worker: call.workerId });
    else logger.info(summary, { worker: call.workerId });
    logger.debug("tool call detail", {
      worker: call.workerId,
      session: call.sessionId,
      tool: call.tool,
      args: call.args,
      result: call.result,
    });
    const { workerId, ...data } = call;
    void events
      .append(workerId, "tool_call", data)
      .catch((error: unknown) => log(`recording a tool call failed: ${String(error)}`));
    if (call.errorCode === "permission_denied") {
      void events
        .append(workerId, "permission_denied", { tool: call.tool, sessionId: call.sessionId, message: call.result })
        .catch(() => undefined);
    }
  };
}

/** Records the finish gate and the audit entries the tools attach to an answer's `_meta`. */
export function createResponseReporter(
  workers: Pick<Workers, "tasks" | "permissions">,
  log: (message: string) => void,
): (workerId: string, message: unknown) => void {
  return (workerId, message) => {
    const { gate, audit } = readToolReports(message);
    if (gate !== undefined)
      workers.tasks
        .recordGate(workerId, gate)
        .catch((error: unknown) => log(`recording the gate of ${workerId} failed: ${String(error)}`));
    if (Array.isArray(audit))
      workers.permissions
        .recordAudit(workerId, audit, "sandbox")
        .catch((error: unknown) => log(`recording the audit of ${workerId} failed: ${String(error)}`));
  };
}
