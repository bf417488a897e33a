import { z } from "zod";
import { isInside, type Policy } from "./policy.js";

/** Something enforce mode would have refused, as audit mode recorded it. */
export const AuditEntrySchema = z.object({ kind: z.enum(["read", "write", "net", "run", "env"]), target: z.string() });
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

const addTo = (grant: true | string[], items: string[]): true | string[] => (grant === true ? true : [...new Set([...grant, ...items])]);

/**
 * The smallest change to `policy` that lets the recorded run pass in enforce mode: each
 * refused host, program and env name is granted, denies that caused a refusal are dropped,
 * and container paths outside every grant become `read`/`write: true` (the tools'
 * container-wide access; host paths are only ever mounted when listed). Pure.
 */
export function suggestPolicy(policy: Policy, audit: readonly AuditEntry[]): Policy {
  const of = (kind: AuditEntry["kind"]) => [...new Set(audit.filter((entry) => entry.kind === kind).map((entry) => entry.target))];
  const reads = of("read");
  const writes = of("write");
  const nets = of("net");
  const runs = of("run");
  const envs = of("env");
  const coveredBy = (grant: true | string[], target: string) => grant === true || grant.some((root) => isInside(target, root));
  const readsOutside = reads.filter((target) => !coveredBy(policy.read, target) && !coveredBy(policy.write, target) && !isInside(target, "/workspace"));
  const writesOutside = writes.filter((target) => !coveredBy(policy.write, target) && !isInside(target, "/workspace"));
  return {
    ...policy,
    read: readsOutside.length > 0 ? true : policy.read,
    write: writesOutside.length > 0 ? true : policy.write,
    net: policy.net === true || nets.length === 0 ? policy.net : [...new Set([...(Array.isArray(policy.net) ? policy.net : []), ...nets])],
    run: addTo(policy.run, runs),
    env: addTo(policy.env, envs),
    deny: {
      read: policy.deny.read.filter((deny) => ![...reads, ...writes].some((target) => isInside(target, deny))),
      write: policy.deny.write.filter((deny) => !writes.some((target) => isInside(target, deny))),
      net: policy.deny.net.filter((deny) => !nets.some((target) => target === deny || (deny.startsWith("*.") && target.split(":")[0]?.endsWith(deny.slice(1).split(":")[0] ?? "")))),
      run: policy.deny.run.filter((deny) => !runs.some((target) => target === deny || target.endsWith(`/${deny}`))),
      env: policy.deny.env.filter((deny) => !envs.includes(deny)),
    },
    mode: "enforce",
  };
}
