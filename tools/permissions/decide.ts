import path from "node:path";
import { judgeNetTarget, parseNetTarget } from "../../contract/host-pattern.js";
import { isInside, type PermissionKind, type PolicyFile } from "../../contract/policy.js";

/** What permissions_query answers, as Deno.permissions.query does. */
export type PermissionState = "granted" | "denied" | "prompt";

function pathGranted(
  policy: PolicyFile,
  target: string,
  kind: "read" | "write",
  workspace: string,
): "granted" | "denied" | "not-granted" {
  if (policy.deny.read.some((deny) => isInside(target, deny))) return "denied";
  if (kind === "write" && policy.deny.write.some((deny) => isInside(target, deny))) return "denied";
  if (isInside(target, workspace)) return "granted";
  const grants = kind === "read" ? [policy.read, policy.write] : [policy.write];
  if (grants.some((grant) => grant === true || grant.some((root) => isInside(target, root)))) return "granted";
  return "not-granted";
}

function programGranted(policy: PolicyFile, program: string): "granted" | "denied" | "not-granted" {
  const base = path.posix.basename(program);
  const matches = (entry: string) =>
    entry === program ||
    entry === base ||
    (entry.startsWith("/") && path.posix.basename(entry) === base && !program.includes("/"));
  if (policy.deny.run.some(matches)) return "denied";
  if (policy.run === true || policy.run.some(matches)) return "granted";
  return "not-granted";
}

function envGranted(policy: PolicyFile, name: string): "granted" | "denied" | "not-granted" {
  if (policy.deny.env.includes(name)) return "denied";
  return policy.env === true || policy.env.includes(name) ? "granted" : "not-granted";
}

function netGranted(policy: PolicyFile, target: string): "granted" | "denied" | "not-granted" {
  // The egress proxy's rule, so the answer is what a connection would meet; a target it could never reach is denied.
  const parsed = parseNetTarget(target);
  return typeof parsed === "string" ? "denied" : judgeNetTarget(policy, parsed.host, parsed.port);
}

/**
 * The decision for one access, as enforce mode sees it: granted, explicitly denied, or not
 * granted (which becomes "prompt" when the policy asks a human). Pure.
 */
export function queryPermission(
  policy: PolicyFile,
  kind: PermissionKind,
  target: string,
  workspace: string,
): PermissionState {
  const raw =
    kind === "read" || kind === "write"
      ? pathGranted(policy, path.posix.resolve(workspace, target), kind, workspace)
      : kind === "run"
        ? programGranted(policy, target)
        : kind === "env"
          ? envGranted(policy, target)
          : netGranted(policy, target);
  if (raw === "granted") return "granted";
  if (raw === "not-granted" && policy.prompt) return "prompt";
  return "denied";
}
