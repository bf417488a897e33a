import type { Policy } from "../permissions/policy.js";
import type { EgressDecision } from "./egress-proxy.js";
import { judgeNetTarget } from "../../contract/host-pattern.js";

/** The Deno-style refusal for a destination. */
export function netDeniedMessage(host: string, port: number): string {
  const target = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  return `PermissionDenied: net access to "${target}" is not granted; grant it with permissions.net (e.g. "net": ["${target}"])`;
}

/** Whether a refused destination should be put to a reviewer instead (prompting policy, no deny naming it). Pure. */
export function shouldPromptEgress(policy: Policy, host: string, port: number): boolean {
  return policy.prompt && policy.mode === "enforce" && judgeNetTarget(policy, host, port) !== "denied";
}

/** Decides one destination under a policy: deny wins, then the grants; audit mode allows and says so. Pure. */
export function decideEgress(policy: Policy, host: string, port: number): EgressDecision {
  if (judgeNetTarget(policy, host, port) === "granted") return { allowed: true };
  if (policy.mode === "audit") return { allowed: true, audited: true };
  return { allowed: false, message: netDeniedMessage(host, port) };
}
