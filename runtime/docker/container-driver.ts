import type { Readable, Writable } from "node:stream";

/** The container settings workcell decides; a driver turns them into its engine's API. */
export interface ContainerSpec {
  readonly name: string;
  readonly image: string;
  /** The user ("uid:gid") the container's init and main command start as. */
  readonly user: string;
  /** Capabilities the container keeps (all others are dropped). */
  readonly capAdd: readonly string[];
  readonly env: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly workingDir: string;
  readonly command: readonly string[];
  /** Bind mounts (host path at target) and tmpfs masks (an empty read-only tmpfs at target). */
  readonly mounts: readonly ContainerMount[];
  readonly tmpfs: Readonly<Record<string, string>>;
  readonly networkMode: "none" | "bridge";
  readonly memoryMb: number;
  readonly cpus: number;
  /** The engine's PID limit (0: none). */
  readonly pids: number;
  /** A cap on the processes of the container's user, enforced by the runtime's kernel (gVisor: per sandbox). */
  readonly maxUserProcesses?: number;
  readonly logMaxBytes: number;
  /** The OCI runtime (e.g. "runsc" for gVisor); the engine's default when absent. */
  readonly runtime?: string;
}

/** One mount of a container. */
export type ContainerMount =
  | { type?: "bind"; source: string; target: string; readOnly: boolean }
  | { type: "tmpfs"; target: string; readOnly: true };

/** What workcell needs to know about a container's state. */
export interface ContainerState {
  readonly id: string;
  readonly name: string;
  readonly running: boolean;
  readonly status: string;
  readonly exitCode: number;
  readonly oomKilled: boolean;
  readonly labels: Readonly<Record<string, string>>;
}

/** A finished exec: exit code and the captured output. */
export interface ExecResult {
  readonly exitCode: number;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
}

/** A running exec with its streams attached; closing stdin ends the program. */
export interface ExecSession {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles with the exit code (or -1 when unknown) once the stream has ended. */
  readonly exited: Promise<number>;
  /** Ends stdin and tears the connection down. */
  close(): void;
  /** Sets the terminal's size (drivers that offer terminals; nothing happens for a session without one). */
  resize?(columns: number, rows: number): Promise<void>;
}

/** Who runs an exec'd program, and where it starts. */
export interface ExecIdentity {
  /** "uid:gid"; the sandbox user the driver was made for when absent. */
  readonly user?: string;
  /** The directory the program starts in; the container's working directory when absent. */
  readonly workingDir?: string;
}

/** Options for a long-lived exec with its streams attached. */
export interface AttachOptions extends ExecIdentity {
  readonly env?: readonly string[];
  /** Give the program a terminal of this size: its output and errors then come merged on stdout. */
  readonly terminal?: { readonly columns: number; readonly rows: number };
}

/** Options for a one-shot exec. */
export interface ExecOptions extends ExecIdentity {
  readonly argv: readonly string[];
  readonly stdin?: Buffer;
  readonly env?: readonly string[];
  /** Write stdout here instead of buffering it (for large binary output). */
  readonly stdoutSink?: Writable;
  readonly maxBufferBytes?: number;
  /** Stops the wait (the container's own deadline still ends the program). */
  readonly signal?: AbortSignal;
  /** Deadline after which the program is killed in the container and the call fails with `timeout` (a default applies). */
  readonly timeoutMs?: number;
}

/** Facts about the engine for /health and error messages. */
export interface EngineInfo {
  readonly serverVersion: string;
  readonly apiVersion: string;
  readonly os: string;
  readonly containers: number;
  readonly cpus: number;
  readonly memoryBytes: number;
  /** OCI runtimes the engine offers (runc, and e.g. runsc). */
  readonly runtimes: readonly string[];
  /** How the engine registered each runtime (binary and arguments), when it says. */
  readonly runtimeDetails?: Readonly<Record<string, { readonly path: string; readonly args: readonly string[] }>>;
  /** The runtime the engine uses when a container names none (usually runc). */
  readonly defaultRuntime?: string;
  /** The default runtime's version, when the engine reports it. */
  readonly runcVersion: string | undefined;
}

/** Progress lines while an image builds. */
export type BuildProgress = (line: string) => void;

/**
 * The container engine as workcell uses it. Docker implements it today; a remote pool or
 * Kubernetes driver can implement it later without server/ or tools/ noticing.
 */
export interface ContainerDriver {
  info(): Promise<EngineInfo>;
  imageExists(tag: string): Promise<boolean>;
  buildImage(
    contextDir: string,
    files: readonly string[],
    dockerfile: string,
    tag: string,
    onProgress: BuildProgress,
  ): Promise<void>;
  create(spec: ContainerSpec): Promise<string>;
  start(id: string): Promise<void>;
  stop(id: string, timeoutS: number): Promise<void>;
  remove(id: string): Promise<void>;
  /** Undefined when the container does not exist. */
  inspect(id: string): Promise<ContainerState | undefined>;
  list(labels: Readonly<Record<string, string>>): Promise<ContainerState[]>;
  /** Runs a program to completion; every exec has a deadline (ExecOptions.timeoutMs or a default). */
  exec(id: string, options: ExecOptions): Promise<ExecResult>;
  /** Starts a program with its streams attached; it runs until its stdin closes or it exits. */
  attach(id: string, argv: readonly string[], options?: AttachOptions): Promise<ExecSession>;
}
