/**
 * What the in-container tools server and the control plane's bridge say to each other over
 * an MCP session besides MCP itself: the requests and notifications the tools server sends
 * (the bridge answers them and never forwards them to the agent), and the `_meta` keys on
 * tool results that carry state out of the sandbox. Defined once, here; both sides import it.
 */

/** A tool call asks the control plane for a decision (an approval gate or a permission). */
export const APPROVAL_METHOD = "workcell/approval";

/** A heavy tool call waits for a host-wide slot. */
export const ADMISSION_METHOD = "workcell/admission";

/** The tools server gives a slot back. */
export const ADMISSION_RELEASE = "notifications/workcell/admission_release";

/** The bridge tells a waiting call its place in the queue. */
export const ADMISSION_POSITION = "notifications/workcell/admission_position";

/** `_meta` key on a tool result: the audit entries the call recorded. */
export const AUDIT_META_KEY = "dev.workcell/audit";

/** `_meta` key on a tool result: the finish gate's state after the call. */
export const GATE_META_KEY = "dev.workcell/gate";

/** `_meta` key on a tool result: why the call failed, by code (see sandbox-error.ts), when it failed for a typed reason. */
export const ERROR_META_KEY = "dev.workcell/error";

/** The worker tool the control plane itself calls: the pipeline's quality gate. */
export const QUALITY_TOOL = "quality_checks";
