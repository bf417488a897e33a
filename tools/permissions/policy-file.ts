import { readFileSync, statSync } from "node:fs";
import { CONTAINER_RUN_DIR, POLICY_FILE_NAME } from "../../contract/container.js";
import { defaultPolicyFile, lockedDownPolicyFile, PolicyFileSchema, type PolicyFile } from "../../contract/policy.js";

/** Where the control plane puts the worker's normalised policy (a read-only mount). */
export const POLICY_FILE = `${CONTAINER_RUN_DIR}/${POLICY_FILE_NAME}`;

/**
 * Reads the policy file, re-reading only when it changed (a PATCH takes effect on the next
 * tool call). A missing file means the default policy; an unreadable or malformed one (not
 * JSON, or any policy field missing or of the wrong type) refuses everything but the
 * workspace rather than allowing more.
 *
 * The file is looked at once per turn of the event loop: a tool call asks for the policy
 * several times (its approval gate, each path it resolves, each program it checks), and under
 * gVisor each look is a ~0.1 ms system call. A request reaches the server as input, in a
 * later turn than any change the control plane finished writing before sending it, so every
 * call still sees every change made before it was sent.
 */
export class PolicySource {
  private cached: { mtimeMs: number; policy: PolicyFile } | undefined;
  /** What this turn of the event loop read (cleared by the next turn). */
  private thisTurn: PolicyFile | undefined;

  constructor(private readonly file: string = process.env.WORKCELL_POLICY_FILE ?? POLICY_FILE) {}

  current(): PolicyFile {
    if (this.thisTurn !== undefined) return this.thisTurn;
    const policy = this.read();
    this.thisTurn = policy;
    setImmediate(() => (this.thisTurn = undefined)).unref();
    return policy;
  }

  private read(): PolicyFile {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.file).mtimeMs;
    } catch {
      return defaultPolicyFile();
    }
    if (this.cached?.mtimeMs === mtimeMs) return this.cached.policy;
    let policy: PolicyFile;
    try {
      const parsed = PolicyFileSchema.safeParse(JSON.parse(readFileSync(this.file, "utf8")));
      policy = parsed.success ? parsed.data : lockedDownPolicyFile();
    } catch {
      policy = lockedDownPolicyFile();
    }
    this.cached = { mtimeMs, policy };
    return policy;
  }
}
