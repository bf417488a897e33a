import { z } from "zod";
import { PermissionKindSchema, type PermissionKind } from "./policy.js";
import { ERROR_META_KEY } from "./wire.js";

/**
 * Failures the sandbox reports by code, so the control plane reads a field and never the
 * text meant for people: a tool result carries the code in its `_meta`, a control mode's
 * answer beside its message. The text the agent or the user sees is unchanged.
 */

/** The failures that cross the boundary typed. */
export const SandboxErrorCodeSchema = z.enum(["permission_denied"]);
export type SandboxErrorCode = z.infer<typeof SandboxErrorCodeSchema>;

/** The Deno-style text of a refusal, the same wherever it is refused: what was refused and how to grant it. */
export function deniedMessage(kind: PermissionKind, target: string): string {
  return `PermissionDenied: ${kind} access to "${target}" is not granted; grant it with permissions.${kind}`;
}

/** `_meta[ERROR_META_KEY]` of a tool result that failed for a typed reason: the code and, for a refusal, what was refused. */
export const ToolErrorSchema = z.object({
  code: SandboxErrorCodeSchema,
  kind: PermissionKindSchema.optional(),
  target: z.string().optional(),
});
export type ToolError = z.infer<typeof ToolErrorSchema>;

/** The `_meta` entry that marks a tool result as a refusal of `kind` access to `target`. */
export function permissionDeniedMeta(kind: PermissionKind, target: string): { [ERROR_META_KEY]: ToolError } {
  return { [ERROR_META_KEY]: { code: "permission_denied", kind, target } };
}

/**
 * The typed error a tool result reports in its `_meta`, or undefined when it reports none
 * or a malformed one. The result comes from the sandbox, so it is validated here. Pure.
 */
export function readToolError(result: unknown): ToolError | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  const meta = (result as { _meta?: unknown })._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  const parsed = ToolErrorSchema.safeParse((meta as Record<string, unknown>)[ERROR_META_KEY]);
  return parsed.success ? parsed.data : undefined;
}

/** What a control mode (run, diff, …) answers when it fails: the message for the user and, when typed, its code. */
export const ControlFailureSchema = z.object({ error: z.string(), code: SandboxErrorCodeSchema.optional() });
export type ControlFailure = z.infer<typeof ControlFailureSchema>;
