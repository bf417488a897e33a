import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { readToolError, type SandboxErrorCode } from "../../contract/sandbox-error.js";

/** A finished tool call as the bridge saw it. */
export interface ToolCallRecord {
  workerId: string;
  sessionId: string | undefined;
  tool: string;
  args: unknown;
  result: string;
  isError: boolean;
  /** Why the call failed, when the tools said so by code (the contract's typed error, never read from the text). */
  errorCode?: SandboxErrorCode;
  durationMs: number;
}

/** The agent's tool calls still open, each reported once when it ends (answer, error or cancellation). */
export class ToolCallLog {
  private readonly open = new Map<RequestId, { tool: string; args: unknown; started: number }>();

  constructor(
    private readonly workerId: string,
    /** The agent's session id, once it has one. */
    private readonly sessionId: () => string | undefined,
    private readonly listener: ((call: ToolCallRecord) => void) | undefined,
  ) {}

  /** Notes a message from the agent: a tools/call starts its clock. */
  begin(message: JSONRPCMessage): void {
    const call = message as { id?: RequestId; method?: string; params?: { name?: unknown; arguments?: unknown } };
    if (call.method === "tools/call" && call.id !== undefined) {
      this.open.set(call.id, {
        tool: String(call.params?.name ?? ""),
        args: call.params?.arguments,
        started: performance.now(),
      });
    }
  }

  /** True while the tools/call with this id has not ended. */
  isOpen(id: RequestId): boolean {
    return this.open.has(id);
  }

  /** Reports a finished tools/call (answer or error) once; other messages pass unnoticed. */
  finish(message: JSONRPCMessage): void {
    const id = (message as { id?: RequestId }).id;
    if (id === undefined || !("result" in message || "error" in message)) return;
    const call = this.open.get(id);
    if (call === undefined) return;
    this.open.delete(id);
    const result =
      "result" in message
        ? (message.result as { content?: { type: string; text?: string }[]; isError?: boolean })
        : undefined;
    const text =
      result?.content
        ?.filter((block) => block.type === "text")
        .map((block) => block.text ?? "")
        .join("\n") ?? ("error" in message ? message.error.message : "");
    const isError = result?.isError === true || "error" in message;
    const typed = isError && result !== undefined ? readToolError(result) : undefined;
    this.listener?.({
      workerId: this.workerId,
      sessionId: this.sessionId(),
      tool: call.tool,
      args: call.args,
      result: text,
      isError,
      ...(typed === undefined ? {} : { errorCode: typed.code }),
      durationMs: Math.round(performance.now() - call.started),
    });
  }
}
