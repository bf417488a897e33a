import path from "node:path";
import { resolveInside, type ResolvedPath } from "../fs/resolve-inside.js";
import { currentCall, type RequestApproval } from "../approvals/approval-client.js";
import { programsOf } from "./command-programs.js";
import { queryPermission, type PermissionState } from "./decide.js";
import { PolicySource } from "./policy-file.js";
import { isInside, type AuditEntry, type PermissionKind, type PolicyFile } from "../../contract/policy.js";
import { deniedMessage } from "../../contract/sandbox-error.js";

/** A refusal by the worker's policy; its message reads like Deno's. */
export class PermissionDeniedError extends Error {
  override readonly name = "PermissionDeniedError";
  constructor(
    readonly kind: PermissionKind,
    readonly target: string,
  ) {
    super(deniedMessage(kind, target));
  }
}

// Shell builtins start no program; checking them would only get in the way.
const BUILTINS = new Set([
  "cd",
  "echo",
  "exit",
  "true",
  "false",
  "test",
  "[",
  "export",
  "set",
  "unset",
  "read",
  "wait",
  "printf",
  "pwd",
  "shift",
  "return",
  "break",
  "continue",
  "local",
  "declare",
  "readonly",
  "type",
  "hash",
  ":",
  "umask",
  "ulimit",
  "let",
  "alias",
  "unalias",
  "getopts",
  "times",
  "trap",
  "jobs",
  "fg",
  "bg",
  "disown",
  "kill",
  "shopt",
  "pushd",
  "popd",
  "dirs",
]);

/**
 * The worker's policy as the tools apply it: file paths (confinement, grants, denies),
 * programs started by commands, and in audit mode the record of what enforce would refuse.
 */
export class AccessControl {
  private audit: AuditEntry[] = [];

  constructor(
    readonly workspace: string,
    private readonly source: PolicySource = new PolicySource(),
    /** Asks a human when the policy says prompt (absent: refuse). */
    private readonly approve?: RequestApproval,
  ) {}

  policy(): PolicyFile {
    return this.source.current();
  }

  /** Deno.permissions.query for the current policy. */
  query(kind: PermissionKind, target: string): PermissionState {
    return queryPermission(this.policy(), kind, target, this.workspace);
  }

  /**
   * Resolves a path a tool was given: inside the workspace with symlink confinement, or in
   * a granted host path (confined to that grant), and never in a denied one.
   */
  async resolve(requested: string, access: "read" | "write"): Promise<ResolvedPath> {
    const policy = this.policy();
    const lexical = path.posix.resolve(this.workspace, requested.includes("\0") ? requested : requested || ".");
    let resolved: ResolvedPath;
    if (!path.posix.isAbsolute(requested) || isInside(lexical, this.workspace) || requested.includes("\0")) {
      resolved = await resolveInside(this.workspace, requested);
    } else {
      const grants = access === "read" ? [policy.read, policy.write] : [policy.write];
      const roots = grants.flatMap((grant) => (grant === true ? [] : grant)).filter((root) => isInside(lexical, root));
      const root = roots.sort((a, b) => b.length - a.length)[0];
      if (root !== undefined) resolved = await resolveInside(root, lexical);
      else if (grants.some((grant) => grant === true)) resolved = await resolveInside("/", lexical);
      else {
        await this.refuse(access, lexical, false);
        resolved = await resolveInside("/", lexical);
      }
      resolved = { ...resolved, relative: resolved.absolute };
    }
    const denied =
      policy.deny.read.some((deny) => isInside(resolved.absolute, deny)) ||
      (access === "write" && policy.deny.write.some((deny) => isInside(resolved.absolute, deny)));
    if (denied) await this.refuse(access, resolved.absolute, true);
    return resolved;
  }

  /** Checks every program a command line (or argv) starts against the run grant. */
  async checkCommand(command: string | readonly string[]): Promise<void> {
    const programs = typeof command === "string" ? programsOf(command) : command.slice(0, 1);
    for (const program of programs) {
      if (BUILTINS.has(program)) continue;
      const state = this.query("run", program);
      if (state !== "granted") await this.refuse("run", program, state === "denied" && this.policy().prompt);
    }
  }

  /** Audit entries recorded since the last call. */
  drainAudit(): AuditEntry[] {
    const entries = this.audit;
    this.audit = [];
    return entries;
  }

  /**
   * Refuses an access — or, in audit mode, records it and allows it; or, when the policy
   * prompts and no deny names the target, asks a reviewer and allows it if approved.
   */
  private async refuse(kind: PermissionKind, target: string, explicitlyDenied: boolean): Promise<void> {
    const policy = this.policy();
    if (policy.mode === "audit") {
      if (!this.audit.some((entry) => entry.kind === kind && entry.target === target))
        this.audit.push({ kind, target });
      return;
    }
    if (policy.prompt && !explicitlyDenied && this.approve !== undefined) {
      const call = currentCall().getStore();
      const answer = await this.approve({
        kind: "permission",
        tool: call?.tool ?? "",
        input: { kind, target },
        description: `${deniedMessage(kind, target)} — allow it?`,
        permission: { kind, target },
      });
      if (answer.decision !== "reject") return;
    }
    throw new PermissionDeniedError(kind, target);
  }
}
