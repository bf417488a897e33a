import path from "node:path";
import { parseHostPattern } from "../../contract/host-pattern.js";
import { AuditEntrySchema, type AuditEntry } from "../../contract/policy.js";

// The entry's shape is the contract's: the sandbox's tools report entries in it.
export { AuditEntrySchema, type AuditEntry } from "../../contract/policy.js";

/** Who recorded an audit entry: the host itself (exec env checks, the egress proxy) or the sandbox's tools. */
export type AuditSource = "host" | "sandbox";

/** Most entries one report may carry; the rest are ignored. */
export const MAX_AUDIT_ENTRIES_PER_REPORT = 200;
const MAX_PATH_CHARS = 4_096;
const MAX_HOST_CHARS = 300;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROGRAM = /^[^\s/\0]+$|^\/[^\0]+$/;
/** Variables the control plane and its engine client read themselves. */
const CONTROL_PLANE_ENV = /^(WORKCELL_|DOCKER_|NODE_|LD_|npm_)|^(PATH|HOME|USER|SHELL|TMPDIR)$/;

/** True for env names the control plane itself relies on: never granted by a suggestion or a prompt. */
export function isControlPlaneEnvName(name: string): boolean {
  return CONTROL_PLANE_ENV.test(name);
}

/** Why `target` is not a valid target of `kind`, or undefined when it is. Pure. */
export function auditTargetProblem(kind: AuditEntry["kind"], target: string): string | undefined {
  switch (kind) {
    case "read":
    case "write":
      if (target.length > MAX_PATH_CHARS || target.includes("\0"))
        return "expected an absolute path of at most 4096 characters without NUL";
      if (
        !path.posix.isAbsolute(target) ||
        path.posix.normalize(target) !== target ||
        (target !== "/" && target.endsWith("/"))
      )
        return "expected a normalised absolute path";
      return undefined;
    case "run":
      return target.length <= MAX_PATH_CHARS && PROGRAM.test(target)
        ? undefined
        : "expected a program name or an absolute path";
    case "net": {
      if (target.length > MAX_HOST_CHARS) return "expected a host of at most 300 characters";
      const parsed = parseHostPattern(target);
      return typeof parsed === "string" ? parsed : parsed.wildcard ? "expected a host, not a wildcard" : undefined;
    }
    case "env":
      return ENV_NAME.test(target) ? undefined : "expected an env name matching [A-Za-z_][A-Za-z0-9_]*";
  }
}

/**
 * The entries of an audit report worth keeping: well-formed, with a valid target of their
 * kind, at most MAX_AUDIT_ENTRIES_PER_REPORT. Env entries are kept only when the host
 * recorded them: the host checks env names itself, so an env entry from the sandbox is
 * never genuine. Pure.
 */
export function acceptAuditEntries(raw: unknown, source: AuditSource): AuditEntry[] {
  if (!Array.isArray(raw)) return [];
  const accepted: AuditEntry[] = [];
  for (const item of raw.slice(0, MAX_AUDIT_ENTRIES_PER_REPORT)) {
    const parsed = AuditEntrySchema.safeParse(item);
    if (!parsed.success) continue;
    const { kind, target } = parsed.data;
    if (kind === "env" && source !== "host") continue;
    if (auditTargetProblem(kind, target) === undefined) accepted.push({ kind, target });
  }
  return accepted;
}
