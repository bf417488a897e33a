import { auditTargetProblem, isControlPlaneEnvName, type AuditEntry } from "./audit-entry.js";
import { isInside, type Policy } from "./policy.js";

export { AuditEntrySchema, type AuditEntry } from "./audit-entry.js";

/** A recorded entry the suggestion leaves out, and why. */
export interface SkippedEntry extends AuditEntry {
  reason: string;
}

/** Container trees whose access says nothing about what a task needs: they are never opened by a suggestion. */
const NEVER_OPENED = ["/proc", "/sys", "/dev", "/run/workcell", "/opt/workcell"];

const addTo = (grant: true | string[], items: string[]): true | string[] =>
  grant === true ? true : [...new Set([...grant, ...items])];

/** Why a recorded entry must not shape a suggestion, or undefined when it may. Pure. */
function skipReason(entry: AuditEntry): string | undefined {
  const problem = auditTargetProblem(entry.kind, entry.target);
  if (problem !== undefined) return `not a valid ${entry.kind} target: ${problem}`;
  if (entry.kind === "env" && isControlPlaneEnvName(entry.target))
    return "the control plane's own variables are never granted to a worker";
  if (entry.kind === "read" || entry.kind === "write") {
    const depth = entry.target.split("/").filter(Boolean).length;
    if (depth < 2)
      return `"${entry.target}" is a whole top-level tree; granting it would open the container wholesale. Grant the paths inside it the task needs by hand.`;
    const tree = NEVER_OPENED.find((root) => isInside(entry.target, root));
    if (tree !== undefined) return `${tree} is the sandbox's own; a task never needs it opened`;
  }
  return undefined;
}

/**
 * The smallest change to `policy` that lets the recorded run pass in enforce mode, and the
 * entries it leaves out: each refused host, program and env name is granted, denies that
 * caused a refusal are dropped, and container paths outside every grant become
 * `read`/`write: true` (the tools' container-wide access; host paths are only ever mounted
 * when listed). Invalid targets, whole top-level trees, the sandbox's own trees and the
 * control plane's env names are never suggested; they come back in `skipped`. Pure.
 */
export function suggestPermissions(
  policy: Policy,
  audit: readonly AuditEntry[],
): { permissions: Policy; skipped: SkippedEntry[] } {
  const skipped: SkippedEntry[] = [];
  const usable = audit.filter((entry) => {
    const reason = skipReason(entry);
    if (reason !== undefined) skipped.push({ kind: entry.kind, target: entry.target, reason });
    return reason === undefined;
  });
  const of = (kind: AuditEntry["kind"]) => [
    ...new Set(usable.filter((entry) => entry.kind === kind).map((entry) => entry.target)),
  ];
  const reads = of("read");
  const writes = of("write");
  const nets = of("net");
  const runs = of("run");
  const envs = of("env");
  const coveredBy = (grant: true | string[], target: string) =>
    grant === true || grant.some((root) => isInside(target, root));
  const readsOutside = reads.filter(
    (target) => !coveredBy(policy.read, target) && !coveredBy(policy.write, target) && !isInside(target, "/workspace"),
  );
  const writesOutside = writes.filter((target) => !coveredBy(policy.write, target) && !isInside(target, "/workspace"));
  const permissions: Policy = {
    ...policy,
    read: readsOutside.length > 0 ? true : policy.read,
    write: writesOutside.length > 0 ? true : policy.write,
    net:
      policy.net === true || nets.length === 0
        ? policy.net
        : [...new Set([...(Array.isArray(policy.net) ? policy.net : []), ...nets])],
    run: addTo(policy.run, runs),
    env: addTo(policy.env, envs),
    deny: {
      read: policy.deny.read.filter((deny) => ![...reads, ...writes].some((target) => isInside(target, deny))),
      write: policy.deny.write.filter((deny) => !writes.some((target) => isInside(target, deny))),
      net: policy.deny.net.filter(
        (deny) =>
          !nets.some(
            (target) =>
              target === deny ||
              (deny.startsWith("*.") && target.split(":")[0]?.endsWith(deny.slice(1).split(":")[0] ?? "")),
          ),
      ),
      run: policy.deny.run.filter((deny) => !runs.some((target) => target === deny || target.endsWith(`/${deny}`))),
      env: policy.deny.env.filter((deny) => !envs.includes(deny)),
    },
    mode: "enforce",
  };
  return { permissions, skipped };
}

/** The suggested policy alone (see suggestPermissions). Pure. */
export function suggestPolicy(policy: Policy, audit: readonly AuditEntry[]): Policy {
  return suggestPermissions(policy, audit).permissions;
}
