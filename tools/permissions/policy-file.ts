import { readFileSync, statSync } from "node:fs";
import { z } from "zod";
import { CONTAINER_RUN_DIR, POLICY_FILE_NAME } from "../../contract/container.js";

/** Where the control plane puts the worker's normalised policy (a read-only mount). */
export const POLICY_FILE = `${CONTAINER_RUN_DIR}/${POLICY_FILE_NAME}`;

const list = z.array(z.string());
/** The normalised policy as the control plane writes it. */
export const ContainerPolicySchema = z.object({
  read: z.union([z.literal(true), list]),
  write: z.union([z.literal(true), list]),
  net: z.union([z.boolean(), list]),
  run: z.union([z.literal(true), list]),
  env: z.union([z.literal(true), list]),
  deny: z.object({ read: list, write: list, net: list, run: list, env: list }),
  prompt: z.boolean(),
  mode: z.enum(["enforce", "audit"]),
  /** Which tool calls need a reviewer (kept with the policy so both change together). */
  approvals: z.object({ tools: list, dangerousGit: z.boolean() }).default({ tools: [], dangerousGit: true }),
});
export type ContainerPolicy = z.infer<typeof ContainerPolicySchema>;

/** Workspace only, no network, any program: what a worker has when nothing says otherwise. */
export function defaultContainerPolicy(): ContainerPolicy {
  return {
    read: [],
    write: [],
    net: false,
    run: true,
    env: [],
    deny: { read: [], write: [], net: [], run: [], env: [] },
    prompt: false,
    mode: "enforce",
    approvals: { tools: [], dangerousGit: true },
  };
}

/**
 * Reads the policy file, re-reading only when it changed (a PATCH takes effect on the next
 * tool call). A missing file means the default policy; an unreadable one refuses
 * everything but the workspace rather than allowing more.
 */
export class PolicySource {
  private cached: { mtimeMs: number; policy: ContainerPolicy } | undefined;

  constructor(private readonly file: string = process.env.WORKCELL_POLICY_FILE ?? POLICY_FILE) {}

  current(): ContainerPolicy {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.file).mtimeMs;
    } catch {
      return defaultContainerPolicy();
    }
    if (this.cached?.mtimeMs === mtimeMs) return this.cached.policy;
    let policy: ContainerPolicy;
    try {
      const parsed = ContainerPolicySchema.safeParse(JSON.parse(readFileSync(this.file, "utf8")));
      policy = parsed.success ? parsed.data : { ...defaultContainerPolicy(), run: [] };
    } catch {
      policy = { ...defaultContainerPolicy(), run: [] };
    }
    this.cached = { mtimeMs, policy };
    return policy;
  }
}
