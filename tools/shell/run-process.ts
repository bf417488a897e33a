import { spawn } from "node:child_process";
import { sandboxCommand } from "../identity/sandbox-user.js";
import { createCallMarker, killMarkedProcesses } from "./call-marker.js";
import { OutputCollector } from "./output-collector.js";
import { CALL_MARKER_VAR } from "../../contract/container.js";

/** What to run and under which limits. */
export interface RunSpec {
  /** argv to execute directly; a string runs through `bash -c`. */
  readonly command: string | readonly string[];
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly env?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** The outcome of a run: a non-zero exit or a timeout is data, not an exception. */
export interface RunResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly truncated: boolean;
  readonly durationMs: number;
  /** Set when the program could not be started at all (e.g. not found). */
  readonly spawnError?: string;
}

const KILL_GRACE_MS = 2_000;
const PIPE_DRAIN_MS = 1_000;

/**
 * Runs a command in its own process group with a timeout; on timeout or abort the whole
 * group gets SIGTERM and, after a grace period, SIGKILL, and when the command ends anything
 * left in its group is killed, so children and grandchildren cannot outlive the call. Every
 * process the call starts carries a marker in its environment, and when the call ends every
 * marked process is killed too, so ones that left the group (setsid, double fork) end as well.
 * Output is captured within `maxOutputBytes` per stream.
 */
export function runProcess(spec: RunSpec): Promise<RunResult> {
  const started = performance.now();
  const stdout = new OutputCollector(spec.maxOutputBytes);
  const stderr = new OutputCollector(spec.maxOutputBytes);
  const argv = typeof spec.command === "string" ? ["bash", "-c", spec.command] : [...spec.command];
  const [program = "", ...programArgs] = argv;
  const { file, args } = sandboxCommand(program, programArgs);

  return new Promise<RunResult>((resolve) => {
    let timedOut = false;
    let settled = false;
    let exit: { code: number | null; signal: string | null } | undefined;
    const timers: NodeJS.Timeout[] = [];
    const marker = createCallMarker();

    const child = spawn(file, args, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env, [CALL_MARKER_VAR]: marker },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));

    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const stop = () => {
      killGroup("SIGTERM");
      timers.push(setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS));
    };
    const finish = (spawnError?: string) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      // Whatever the command left running in its group (a stray `cmd &`) ends with it;
      // long-lived processes belong in start_process.
      killGroup("SIGKILL");
      killMarkedProcesses(marker);
      spec.signal?.removeEventListener("abort", onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      const truncated = stdout.truncated || stderr.truncated;
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: stdout.toText(),
        stderr: stderr.toText(),
        timedOut,
        truncated,
        durationMs: Math.round(performance.now() - started),
        ...(spawnError === undefined ? {} : { spawnError }),
      });
    };
    const onAbort = () => stop();

    timers.push(
      setTimeout(() => {
        timedOut = true;
        stop();
      }, spec.timeoutMs),
    );
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    if (spec.signal?.aborted) stop();

    child.on("error", (error) => finish(error.message));
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      if (timedOut) killGroup("SIGKILL");
      // Background children may hold the pipes open; don't wait for them forever.
      timers.push(setTimeout(() => finish(), PIPE_DRAIN_MS));
    });
    child.on("close", () => finish());
  });
}
