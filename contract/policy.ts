import { z } from "zod";

/**
 * A worker's permission policy as both sides hold it: the control plane stores and answers
 * it, and writes it (with the approval settings the tools apply) into the container's
 * policy file, which the tools read before every check. Defined once, here.
 */

/** The kinds of access a policy governs. */
export const PermissionKindSchema = z.enum(["read", "write", "net", "run", "env"]);
export type PermissionKind = z.infer<typeof PermissionKindSchema>;

/** Something enforce mode would have refused, as audit mode records it (in the sandbox or on the host). */
export const AuditEntrySchema = z.object({ kind: PermissionKindSchema, target: z.string() });
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** Whether the absolute path `candidate` is `parent` or lies below it (lexically): how grants and denies cover paths. Pure. */
export function isInside(candidate: string, parent: string): boolean {
  return candidate === parent || candidate.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
}

const list = z.array(z.string());
const allOrList = z.union([z.literal(true), list]);
const netGrant = z.union([z.boolean(), list]);
const mode = z.enum(["enforce", "audit"]);

/**
 * A normalised policy as stored and answered: every field present once parsed; absent
 * fields take the defaults (workspace only, no network, any program, no env, enforce).
 */
export const PolicySchema = z.object({
  read: allOrList.default(() => []),
  write: allOrList.default(() => []),
  net: netGrant.default(false),
  run: allOrList.default(true),
  env: allOrList.default(() => []),
  deny: z
    .object({
      read: list.default(() => []),
      write: list.default(() => []),
      net: list.default(() => []),
      run: list.default(() => []),
      env: list.default(() => []),
    })
    .default(() => ({ read: [], write: [], net: [], run: [], env: [] })),
  prompt: z.boolean().default(false),
  mode: mode.default("enforce"),
});
/** A normalised policy: every field present, paths absolute and clean, hosts canonical. */
export type Policy = z.output<typeof PolicySchema>;

/** The policy a worker gets when it asks for nothing: workspace only, no network, any program, no env. */
export function defaultPolicy(): Policy {
  return PolicySchema.parse({});
}

/** Which tool calls need a reviewer, as the tools apply it (kept with the policy so both change together). */
export const PolicyApprovalsSchema = z.object({ tools: list, dangerousGit: z.boolean() });
export type PolicyApprovals = z.infer<typeof PolicyApprovalsSchema>;

/**
 * The policy file the control plane writes into the container. Every policy field is
 * required: a file that lacks one is malformed, and the tools then refuse rather than fill
 * in a default that may allow more (see lockedDownPolicyFile). Only `approvals` has a
 * default, the one a worker gets when it asks for none.
 */
export const PolicyFileSchema = z.object({
  read: allOrList,
  write: allOrList,
  net: netGrant,
  run: allOrList,
  env: allOrList,
  deny: z.object({ read: list, write: list, net: list, run: list, env: list }),
  prompt: z.boolean(),
  mode,
  approvals: PolicyApprovalsSchema.default(() => ({ tools: [], dangerousGit: true })),
});
export type PolicyFile = z.infer<typeof PolicyFileSchema>;

/** The policy file's content for a policy and the worker's approval settings (extra settings are left out). */
export function toPolicyFile(policy: Policy, approvals: PolicyApprovals): PolicyFile {
  return { ...policy, approvals: { tools: approvals.tools, dangerousGit: approvals.dangerousGit } };
}

/** What the tools apply when there is no policy file: the default policy and approval settings. */
export function defaultPolicyFile(): PolicyFile {
  return toPolicyFile(defaultPolicy(), { tools: [], dangerousGit: true });
}

/** What the tools apply when the policy file cannot be read or parsed: the workspace only, no program, no network, no env. */
export function lockedDownPolicyFile(): PolicyFile {
  return { ...defaultPolicyFile(), run: [] };
}
