/**
 * Who workcell's in-container programs are, and who the programs they start are.
 *
 * The control plane execs them as the container's root, which holds only CAP_SETUID,
 * CAP_SETGID and CAP_SETPCAP. They switch their effective ids (and so every file access) to the sandbox user
 * but keep the real and saved uid 0: the kernel (runc) and gVisor then refuse every process
 * of the sandbox user access to their /proc/<pid>/fd, memory, ptrace and signals, so their
 * stdio, the channel to the control plane, cannot be forged. Every program they start runs
 * as the sandbox user through the image's helper, with no way back.
 */

import { SANDBOX_USER_HELPER, SANDBOX_USER_VAR } from "../../contract/container.js";

/** The sandbox user named by `value` ("uid:gid", neither 0). */
export function parseSandboxUser(value: string | undefined): { uid: number; gid: number } {
  const match = /^([1-9]\d{0,9}):([1-9]\d{0,9})$/.exec(value ?? "");
  const uid = Number(match?.[1]);
  const gid = Number(match?.[2]);
  if (match === null || uid >= 2 ** 32 - 1 || gid >= 2 ** 32 - 1) {
    throw new Error(
      `${SANDBOX_USER_VAR} must be "uid:gid" with ids other than 0; got ${JSON.stringify(value ?? null)}. The control plane sets it on every workcell container; recreate the worker's container (POST /v1/workers/:id/stop, then /start).`,
    );
  }
  return { uid, gid };
}

/**
 * When started as root, takes the sandbox user's identity for everything but the real and
 * saved uid (see above). Started as anyone else it changes nothing. Throws rather than go on
 * as root when the sandbox user is not named or the switch does not take.
 */
export function assumeSandboxUser(env: Readonly<Record<string, string | undefined>>): void {
  if (process.getuid?.() !== 0 || process.geteuid?.() !== 0) return;
  const { uid, gid } = parseSandboxUser(env[SANDBOX_USER_VAR]);
  process.setgroups?.([gid]);
  process.setegid?.(gid);
  process.seteuid?.(uid);
  if (process.geteuid?.() !== uid || process.getegid?.() !== gid || process.getuid?.() !== 0) {
    throw new Error(
      `Switching to the sandbox user ${uid}:${gid} did not take (effective ${process.geteuid?.()}:${process.getegid?.()}).`,
    );
  }
}

/**
 * The program and arguments that start `file` as the sandbox user: through the helper when
 * this process kept a root real uid (so its children could otherwise take root back), as
 * given when it runs as one plain user (tests, or a runtime started without the switch).
 */
export function sandboxCommand(file: string, args: readonly string[]): { file: string; args: string[] } {
  const realUid = process.getuid?.();
  const uid = process.geteuid?.();
  const gid = process.getegid?.();
  if (realUid !== 0 || uid === undefined || gid === undefined || uid === 0) return { file, args: [...args] };
  return { file: SANDBOX_USER_HELPER, args: [String(uid), String(gid), file, ...args] };
}
