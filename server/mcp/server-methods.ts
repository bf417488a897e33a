import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Server-to-client methods the operator must enable before a worker's tools may use them. */
export interface ServerMethodOptions {
  /** `elicitation/create`: the sandbox asks the agent's user a question. */
  readonly elicitation: boolean;
  /** `sampling/createMessage`: the sandbox asks the agent's model for a completion. */
  readonly sampling: boolean;
}

/** Requests an MCP server may send its client, always allowed. */
const REQUESTS = new Set(["ping", "roots/list"]);

/** Notifications an MCP server may send its client. */
const NOTIFICATIONS = new Set([
  "notifications/progress",
  "notifications/message",
  "notifications/cancelled",
  "notifications/resources/updated",
  "notifications/resources/list_changed",
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
]);

/** What the bridge does with one message from the container on its way to the agent. */
export type ServerMessageVerdict =
  { pass: true } | { pass: false; reason: string; answerWith?: { code: number; message: string } };

/** JSON-RPC "method not found". */
const METHOD_NOT_FOUND = -32601;

/**
 * Decides whether a message from a worker's tools may reach the agent. Responses pass (the
 * router matches them to open requests); requests and notifications pass only when their
 * method is a known MCP server-to-client method, and elicitation and sampling only when the
 * operator enabled them. A refused request is answered, so the sandbox never waits on it.
 */
export function judgeServerMessage(message: JSONRPCMessage, options: ServerMethodOptions): ServerMessageVerdict {
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (method === undefined) return { pass: true };
  const name = typeof method === "string" ? method.slice(0, 100) : String(method).slice(0, 100);
  const isRequest = id !== undefined;
  if (isRequest) {
    if (REQUESTS.has(name)) return { pass: true };
    if (name === "elicitation/create" && options.elicitation) return { pass: true };
    if (name === "sampling/createMessage" && options.sampling) return { pass: true };
    const why =
      name === "elicitation/create" || name === "sampling/createMessage"
        ? `${name} is off on this control plane (WORKCELL_MCP_${name.startsWith("elicitation") ? "ELICITATION" : "SAMPLING"}=true enables it)`
        : `${JSON.stringify(name)} is not an MCP server-to-client request`;
    return {
      pass: false,
      reason: `dropped request: ${why}`,
      answerWith: { code: METHOD_NOT_FOUND, message: `The control plane does not pass ${why}.` },
    };
  }
  if (NOTIFICATIONS.has(name)) return { pass: true };
  return {
    pass: false,
    reason: `dropped notification: ${JSON.stringify(name)} is not an MCP server-to-client notification`,
  };
}
