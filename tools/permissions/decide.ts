import path from "node:path";
import type { ContainerPolicy } from "./policy-file.js";

/** The kinds of access a policy governs. */
export type PermissionKind = "read" | "write" | "net" | "run" | "env";

/** What permissions_query answers, as Deno.permissions.query does. */
export type PermissionState = "granted" | "denied" | "prompt";

/** Whether `candidate` is `parent` or lies below it. */
export function isInside(candidate: string, parent: string): boolean {
  return candidate === parent || candidate.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
}

/** The Deno-style refusal text. */
export function deniedMessage(kind: PermissionKind, target: string): string {
  const verb = { read: "read access to", write: "write access to", net: "net access to", run: "run access to", env: "env access to" }[kind];
  return `PermissionDenied: ${verb} "${target}" is not granted; grant it with permissions.${kind}`;
}

function pathGranted(policy: ContainerPolicy, target: string, kind: "read" | "write", workspace: string): "granted" | "denied" | "not-granted" {
  if (policy.deny.read.some((deny) => isInside(target, deny))) return "denied";
  if (kind === "write" && policy.deny.write.some((deny) => isInside(target, deny))) return "denied";
  if (isInside(target, workspace)) return "granted";
  const grants = kind === "read" ? [policy.read, policy.write] : [policy.write];
  if (grants.some((grant) => grant === true || grant.some((root) => isInside(target, root)))) return "granted";
  return "not-granted";
}

function programGranted(policy: ContainerPolicy, program: string): "granted" | "denied" | "not-granted" {
  const base = path.posix.basename(program);
  const matches = (entry: string) => entry === program || entry === base || (entry.startsWith("/") && path.posix.basename(entry) === base && !program.includes("/"));
  if (policy.deny.run.some(matches)) return "denied";
  if (policy.run === true || policy.run.some(matches)) return "granted";
  return "not-granted";
}

function envGranted(policy: ContainerPolicy, name: string): "granted" | "denied" | "not-granted" {
  if (policy.deny.env.includes(name)) return "denied";
  return policy.env === true || policy.env.includes(name) ? "granted" : "not-granted";
}

function netGranted(policy: ContainerPolicy, target: string): "granted" | "denied" | "not-granted" {
  const [host = "", portText] = target.toLowerCase().split(/:(?=\d+$)/);
  const port = portText === undefined ? null : Number(portText);
  const covers = (entry: string) => {
    const [entryHost = "", entryPort] = entry.split(/:(?=\d+$)/);
    if (entryPort !== undefined && port !== null && Number(entryPort) !== port) return false;
    if (entryPort !== undefined && port === null) return false;
    return entryHost.startsWith("*.") ? host.endsWith(entryHost.slice(1)) : entryHost === host;
  };
  if (policy.deny.net.some(covers)) return "denied";
  if (policy.net === true || (Array.isArray(policy.net) && policy.net.some(covers))) return "granted";
  return "not-granted";
}

/**
 * The decision for one access, as enforce mode sees it: granted, explicitly denied, or not
 * granted (which becomes "prompt" when the policy asks a human). Pure.
 */
export function queryPermission(policy: ContainerPolicy, kind: PermissionKind, target: string, workspace: string): PermissionState {
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
