import { spawn, type ChildProcess } from "node:child_process";
import { sandboxCommand } from "../identity/sandbox-user.js";
import { ToolInputError } from "../tool-result.js";

/** Bytes of combined output kept per background process (older output is dropped). */
export const PROCESS_BUFFER_BYTES = 1024 * 1024;
/** Background processes one session may run at once. */
export const MAX_PROCESSES = 16;

/**
 * A growing log with a bounded window: readers ask from an absolute byte cursor and learn
 * how much was dropped if they fell behind. Pure data structure.
 */
export class OutputLog {
  private chunks: Buffer[] = [];
  private start = 0;
  private end = 0;

  constructor(private readonly capacity: number) {}

  append(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.end += chunk.length;
    while (this.end - this.start - (this.chunks[0]?.length ?? 0) >= this.capacity) {
      this.start += (this.chunks.shift() as Buffer).length;
    }
  }

  /** Output from `cursor` on (at most `maxBytes`), the next cursor, and bytes lost before it. */
  read(cursor: number, maxBytes: number): { text: string; next: number; dropped: number } {
    const from = Math.max(cursor, this.start);
    const dropped = from - cursor;
    const all = Buffer.concat(this.chunks);
    const slice = all.subarray(from - this.start, Math.min(all.length, from - this.start + maxBytes));
    return { text: slice.toString("utf8"), next: from + slice.length, dropped };
  }

  get length(): number {
    return this.end;
  }
}

interface ManagedProcess {
  readonly id: string;
  readonly command: string;
  readonly cwd: string;
  readonly startedAt: string;
  readonly child: ChildProcess;
  readonly log: OutputLog;
  exitCode: number | null;
  signal: string | null;
  running: boolean;
}

/** What list_processes and read_process_output say about a process. */
export type ProcessInfo = {
  processId: string;
  pid: number | undefined;
  command: string;
  cwd: string;
  startedAt: string;
  running: boolean;
  exitCode: number | null;
  signal: string | null;
  outputBytes: number;
};

/**
 * Background processes of one MCP session: each in its own process group, output kept in
 * a bounded log, all killed when the session's server exits.
 */
export class ProcessManager {
  private readonly processes = new Map<string, ManagedProcess>();
  private nextId = 1;

  constructor() {
    process.on("exit", () => {
      for (const managed of this.processes.values()) if (managed.running) killGroup(managed.child, "SIGKILL");
    });
  }

  start(command: string, cwd: string, env?: Record<string, string>): ProcessInfo {
    const running = [...this.processes.values()].filter((managed) => managed.running).length;
    if (running >= MAX_PROCESSES)
      throw new ToolInputError(
        `${running} background processes are running; kill_process one before starting another.`,
      );
    const bash = sandboxCommand("bash", ["-c", command]);
    const child = spawn(bash.file, bash.args, {
      cwd,
      env: { ...process.env, ...env },
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const managed: ManagedProcess = {
      id: `p${this.nextId++}`,
      command,
      cwd,
      startedAt: new Date().toISOString(),
      child,
      log: new OutputLog(PROCESS_BUFFER_BYTES),
      exitCode: null,
      signal: null,
      running: true,
    };
    child.stdout?.on("data", (chunk: Buffer) => managed.log.append(chunk));
    child.stderr?.on("data", (chunk: Buffer) => managed.log.append(chunk));
    child.stdin?.on("error", () => undefined);
    child.on("error", (error) => {
      managed.log.append(Buffer.from(`[could not start: ${error.message}]\n`));
      managed.running = false;
    });
    child.on("exit", (code, signal) => {
      managed.exitCode = code;
      managed.signal = signal;
      managed.running = false;
    });
    this.processes.set(managed.id, managed);
    return describe(managed);
  }

  read(
    id: string,
    cursor: number,
    maxBytes: number,
  ): ProcessInfo & { output: string; cursor: number; dropped: number } {
    const managed = this.get(id);
    const { text, next, dropped } = managed.log.read(cursor, maxBytes);
    return { ...describe(managed), output: text, cursor: next, dropped };
  }

  write(id: string, input: string, closeStdin: boolean): void {
    const managed = this.get(id);
    if (!managed.running || managed.child.stdin === null || managed.child.stdin.destroyed)
      throw new ToolInputError(`Process ${id} is not running or its input is closed.`);
    managed.child.stdin.write(input);
    if (closeStdin) managed.child.stdin.end();
  }

  kill(id: string, signal: NodeJS.Signals): ProcessInfo {
    const managed = this.get(id);
    if (managed.running) killGroup(managed.child, signal);
    return describe(managed);
  }

  list(): ProcessInfo[] {
    return [...this.processes.values()].map(describe);
  }

  private get(id: string): ManagedProcess {
    const managed = this.processes.get(id);
    if (managed === undefined)
      throw new ToolInputError(`No background process "${id}". list_processes shows the ones this session started.`);
    return managed;
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function describe(managed: ManagedProcess): ProcessInfo {
  return {
    processId: managed.id,
    pid: managed.child.pid,
    command: managed.command,
    cwd: managed.cwd,
    startedAt: managed.startedAt,
    running: managed.running,
    exitCode: managed.exitCode,
    signal: managed.signal,
    outputBytes: managed.log.length,
  };
}
