// The selected worker's events, one row each: when, what kind, what it did, how long it took.
import { $, el } from "./dom.js";

/** The event types that change a worker itself (the workers table is fetched again on them). */
export const LIFECYCLE = new Set([
  "created",
  "started",
  "stopped",
  "stopped_by_limit",
  "removed",
  "status_changed",
  "permissions_changed",
  "model_changed",
]);

/** An event in one line: a tool call with its arguments and first line of result, a refusal, a decision. */
function describe(event) {
  if (event.type === "tool_call")
    return `${event.tool}(${JSON.stringify(event.args ?? {})
      .slice(1, -1)
      .slice(0, 160)}) → ${(event.result ?? "").split("\n")[0].slice(0, 200)}`;
  if (event.type === "permission_denied")
    return `${event.kind ?? ""} ${event.target ?? ""} refused${event.tool ? ` in ${event.tool}` : ""}`;
  if (event.type === "approval_requested") return `${event.tool}: ${event.description ?? ""}`;
  if (event.type === "approval_decided")
    return `${event.decision ?? event.status ?? ""}${event.reason ? `: ${event.reason}` : ""}`;
  const { seq, ts, workerId, type, ...rest } = event;
  return Object.keys(rest).length === 0 ? "" : JSON.stringify(rest).slice(0, 240);
}

/** Adds the event's row, and keeps the list scrolled to the end if it was there. */
export function appendEvent(event) {
  const list = $("events");
  const kind = event.isError
    ? "error"
    : event.type === "permission_denied"
      ? "refused"
      : LIFECYCLE.has(event.type)
        ? "lifecycle"
        : "";
  const item = el(
    "li",
    {
      class: kind,
      "data-seq": String(event.seq),
      "data-type": event.type,
      ...(event.tool ? { "data-tool": event.tool } : {}),
    },
    el("span", { class: "time", text: new Date(event.ts).toLocaleTimeString() }),
    el("span", { class: "type", text: event.type === "tool_call" ? event.tool : event.type.replaceAll("_", " ") }),
    el("span", { class: "what mono", text: describe(event), title: describe(event) }),
    el("span", { class: "duration", text: event.durationMs === undefined ? "" : `${Math.round(event.durationMs)} ms` }),
  );
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
  list.append(item);
  if (atBottom) list.scrollTop = list.scrollHeight;
}
