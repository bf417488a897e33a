import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { CALL_MARKER_VAR } from "../../contract/container.js";

/** Rounds of scan-and-kill before giving up on a process tree that keeps forking. */
const MAX_SWEEPS = 20;

/** A fresh marker value for one call. */
export function createCallMarker(): string {
  return randomBytes(12).toString("hex");
}

/** Pids (other than this process) whose environment carries the marker. Unreadable processes are skipped. */
export function findMarkedPids(marker: string, procRoot = "/proc"): number[] {
  const needle = Buffer.from(`${CALL_MARKER_VAR}=${marker}\0`);
  const found: number[] = [];
  for (const entry of readdirSync(procRoot)) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`${procRoot}/${entry}/environ`);
    } catch {
      continue;
    }
    const at = environ.indexOf(needle);
    if (at === 0 || (at > 0 && environ[at - 1] === 0)) found.push(Number(entry));
  }
  return found;
}

/**
 * Kills every process that carries the call's marker, including ones that left the call's
 * process group with setsid or a double fork, sweeping again until none is left (a process
 * may fork while it is being killed). Returns how many were killed. A process that rewrites
 * its own environment (or execs with a cleared one) escapes the scan: this is cleanup of
 * what a call started, not a security boundary; the container's end is that boundary.
 */
export function killMarkedProcesses(marker: string): number {
  let killed = 0;
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep += 1) {
    const pids = findMarkedPids(marker);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
        killed += 1;
      } catch {
        // Already gone.
      }
    }
  }
  return killed;
}
