import { AppError } from "../errors/app-error.js";
import { isControlPlaneEnvName } from "../permissions/audit-entry.js";
import { isInside, normalizePolicy, PermissionsInputSchema, PolicyError, type Policy } from "../permissions/policy.js";
import type { ApprovalSettings } from "./approval.js";
import { ApprovalParamsSchema, type ApprovalParams } from "../../contract/approval.js";
import type { PermissionKind } from "../../contract/policy.js";

/** Largest tool input (as JSON) an approval may carry: a reviewer must be able to read all of it. */
export const MAX_APPROVAL_INPUT_BYTES = 64 * 1024;
/** Longest reason from the worker's tools that is shown (the rest is cut). */
const MAX_REASON_CHARS = 300;

/** A permission a prompt asks for, as the host validated and normalised it. */
export interface ApprovalPermission {
  kind: PermissionKind;
  target: string;
}

// What the worker's tools send with an approval request: the contract's.
export { ApprovalParamsSchema, type ApprovalParams };

/** An approval request as the host records it: fields validated, text written by the host. */
export interface BuiltApprovalRequest {
  kind: "tool" | "permission";
  tool: string;
  input: unknown;
  description: string;
  permission?: ApprovalPermission;
}

/** The size of `input` as JSON, in bytes. Pure. */
export function inputBytes(input: unknown): number {
  return Buffer.byteLength(JSON.stringify(input ?? null) ?? "null", "utf8");
}

/** Refuses an input a reviewer could not read in full. */
export function assertInputBounded(input: unknown): void {
  const bytes = inputBytes(input);
  if (bytes > MAX_APPROVAL_INPUT_BYTES) {
    throw new AppError(
      "payload_too_large",
      `The call's input is ${bytes} bytes as JSON; an approval can show at most ${MAX_APPROVAL_INPUT_BYTES} bytes to a reviewer, so it was refused. Split the change into smaller calls.`,
      { details: { bytes, maxBytes: MAX_APPROVAL_INPUT_BYTES } },
    );
  }
}

/** Text from the sandbox made safe to show: no control or format characters, one line, bounded, quoted. Pure. */
export function quoteUntrusted(text: string): string {
  const flat = text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  return JSON.stringify(flat.length > MAX_REASON_CHARS ? `${flat.slice(0, MAX_REASON_CHARS)}…` : flat);
}

/**
 * Checks that `permission` is one the worker's policy could grant through a prompt: the
 * policy prompts, the target passes the same validation as `permissions` in the API, no
 * deny covers it, and env names are never the control plane's own. Answers it normalised.
 */
export function validatePromptPermission(
  permission: ApprovalPermission,
  policy: Policy,
  dataDir: string,
): ApprovalPermission {
  const refuse = (why: string) =>
    new AppError(
      "permission_denied",
      `The permission prompt for ${permission.kind} "${permission.target.slice(0, 200)}" was refused: ${why}`,
      { details: { kind: permission.kind } },
    );
  if (!policy.prompt) throw refuse("this worker's policy does not prompt (permissions.prompt is false).");
  if (permission.kind === "env" && isControlPlaneEnvName(permission.target))
    throw refuse("the control plane's own variables are never granted to a worker.");
  const input = PermissionsInputSchema.safeParse({ [permission.kind]: [permission.target] });
  if (!input.success) throw refuse(`${input.error.issues[0]?.message ?? "not a valid target"}.`);
  let normalized: Policy;
  try {
    normalized = normalizePolicy(input.data, { dataDir });
  } catch (error) {
    if (error instanceof PolicyError) throw refuse(error.message);
    throw error;
  }
  const granted = normalized[permission.kind];
  const target = Array.isArray(granted) ? granted[0] : undefined;
  if (target === undefined) throw refuse("not a valid target.");
  const denies = policy.deny[permission.kind];
  const denied =
    permission.kind === "read" || permission.kind === "write"
      ? [...policy.deny.read, ...(permission.kind === "write" ? policy.deny.write : [])].some((deny) =>
          isInside(target, deny),
        )
      : denies.includes(target);
  if (denied) throw refuse(`permissions.deny.${permission.kind} names it; a denied target is never prompted for.`);
  return { kind: permission.kind, target };
}

const GRANT_TEXT: Record<PermissionKind, (target: string) => { once: string; forLife: string }> = {
  read: (t) => ({
    once: `the file tools may read ${t} for this one call`,
    forLife: `read: ${t} is added to the policy — the host path ${t} is mounted read-only into the sandbox at the same path from its next start`,
  }),
  write: (t) => ({
    once: `the file tools may write ${t} for this one call`,
    forLife: `write: ${t} is added to the policy — the host path ${t} is mounted READ-WRITE into the sandbox at the same path from its next start`,
  }),
  net: (t) => ({
    once: `this one connection to ${t} is allowed`,
    forLife: `net: ${t} is added to the policy — the sandbox may connect to ${t} from now on`,
  }),
  run: (t) => ({
    once: `the program ${t} may start for this one call`,
    forLife: `run: ${t} is added to the policy — the sandbox may start ${t} from now on`,
  }),
  env: (t) => ({
    once: `the env var ${t} may be passed for this one call`,
    forLife: `env: ${t} is added to the policy — the control plane's own value of ${t}, when set, enters the sandbox from now on`,
  }),
};

/** The text a reviewer sees, written by the host from the request's validated fields only. Pure. */
export function describeApproval(
  request: {
    kind: "tool" | "permission";
    tool: string;
    input: unknown;
    reason?: string;
    permission?: ApprovalPermission;
  },
  settings: ApprovalSettings,
): string {
  if (request.kind === "permission" && request.permission !== undefined) {
    const { kind, target } = request.permission;
    const text = GRANT_TEXT[kind](JSON.stringify(target));
    const during = request.tool === "" || request.tool === kind ? "" : ` during a ${request.tool} call`;
    return [
      `Permission prompt: the worker asks for ${kind} access to ${JSON.stringify(target)}${during}.`,
      `Approve (scope "once"): ${text.once}.`,
      `Approve (scope "worker"): ${text.forLife}.`,
    ].join("\n");
  }
  const why = settings.tools.includes(request.tool)
    ? `${request.tool} always needs approval on this worker`
    : request.reason === undefined || request.reason.trim() === ""
      ? "the worker's tools gave no reason"
      : `the worker's tools report ${quoteUntrusted(request.reason)}`;
  return [
    `Tool call: ${request.tool} with this input:`,
    JSON.stringify(request.input ?? null, null, 2),
    `Why it needs approval: ${why}.`,
    "Approving runs this one call as shown (edit runs it with your input instead); it grants no permission.",
  ].join("\n");
}

/**
 * Turns the worker's untrusted approval request into what the host records: a tool
 * approval never carries a permission, its input is bounded, a permission prompt's
 * permission is one the policy could grant (and the prompt's input is that permission),
 * and the description is written by the host.
 */
export function buildApprovalRequest(
  params: unknown,
  context: { policy: Policy; settings: ApprovalSettings; dataDir: string },
): BuiltApprovalRequest {
  const parsed = ApprovalParamsSchema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError(
      "invalid_input",
      `The approval request is malformed: ${issue?.path.join(".") || "params"}: ${issue?.message}. Expected {kind, tool, input, description?, permission?}.`,
    );
  }
  const { kind, tool, input, description, permission } = parsed.data;
  if (kind === "tool") {
    if (permission !== undefined) {
      throw new AppError(
        "permission_denied",
        'A tool approval cannot carry a permission; it was refused. Permissions are asked for with kind "permission", whose text states the grant.',
      );
    }
    assertInputBounded(input);
    return {
      kind,
      tool,
      input,
      description: describeApproval(
        { kind, tool, input, ...(description === undefined ? {} : { reason: description }) },
        context.settings,
      ),
    };
  }
  if (permission === undefined)
    throw new AppError("invalid_input", "A permission prompt needs permission: {kind, target}.");
  const granted = validatePromptPermission(permission, context.policy, context.dataDir);
  return {
    kind,
    tool,
    input: { ...granted },
    permission: granted,
    description: describeApproval({ kind, tool, input: granted, permission: granted }, context.settings),
  };
}
