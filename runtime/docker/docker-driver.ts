import { PassThrough, Writable } from "node:stream";
import Docker from "dockerode";
import { AppError } from "../errors/app-error.js";
import { seccompSecurityOpt } from "./seccomp-profile.js";
import type {
  AttachOptions,
  BuildProgress,
  ContainerDriver,
  ContainerSpec,
  ContainerState,
  EngineInfo,
  ExecOptions,
  ExecResult,
  ExecSession,
} from "./container-driver.js";
import { sandboxUser } from "./container-spec.js";
import { DEFAULT_EXEC_DEADLINE_MS, HOST_DEADLINE_GRACE_MS, killAfterArgv, raceAbort } from "./exec-deadline.js";

const DEFAULT_MAX_EXEC_BUFFER_BYTES = 64 * 1024 * 1024;
/** How `timeout -s KILL` exits when it killed the program (128 + SIGKILL). */
const KILLED_EXIT_CODE = 137;

/** Each registered runtime's binary and arguments, from `docker info`'s Runtimes. */
function readRuntimeDetails(runtimes: unknown): Record<string, { path: string; args: string[] }> {
  const entries = Object.entries((runtimes ?? {}) as Record<string, { path?: unknown; runtimeArgs?: unknown } | null>);
  return Object.fromEntries(
    entries.map(([name, entry]) => [name, { path: typeof entry?.path === "string" ? entry.path : name, args: Array.isArray(entry?.runtimeArgs) ? entry.runtimeArgs.map(String) : [] }]),
  );
}

/** How to reach the engine, and who an exec runs as unless it says otherwise. */
export interface DockerDriverOptions {
  /** dockerode's connection options; DOCKER_HOST or the local socket when absent. */
  readonly engine?: Docker.DockerOptions;
  /** The sandbox user; sandboxUser() of this process when absent. */
  readonly sandboxUser?: { readonly uid: number; readonly gid: number };
}

/** The ContainerDriver for a Docker engine, local or remote (dockerode honours DOCKER_HOST). */
export class DockerDriver implements ContainerDriver {
  private readonly docker: Docker;
  /** Containers start as root (to hand workcell's own programs their identity), so every exec names its user. */
  private readonly defaultUser: string;

  constructor(options: DockerDriverOptions = {}) {
    this.docker = new Docker(options.engine);
    const user = options.sandboxUser ?? sandboxUser(process.getuid?.() ?? 1000, process.getgid?.() ?? 1000);
    this.defaultUser = `${user.uid}:${user.gid}`;
  }

  async info(): Promise<EngineInfo> {
    const [info, version] = await guard(() => Promise.all([this.docker.info(), this.docker.version()]));
    return {
      serverVersion: String(version.Version),
      apiVersion: String(version.ApiVersion),
      os: String(info.OperatingSystem ?? ""),
      containers: Number(info.Containers ?? 0),
      cpus: Number(info.NCPU ?? 1),
      memoryBytes: Number(info.MemTotal ?? 0),
      runtimes: Object.keys((info.Runtimes as Record<string, unknown> | undefined) ?? {}),
      runtimeDetails: readRuntimeDetails(info.Runtimes),
      ...(typeof info.DefaultRuntime === "string" ? { defaultRuntime: info.DefaultRuntime } : {}),
      runcVersion: (info as { RuncCommit?: { ID?: string } }).RuncCommit?.ID,
    };
  }

  async imageExists(tag: string): Promise<boolean> {
    return guard(async () => {
      try {
        await this.docker.getImage(tag).inspect();
        return true;
      } catch (error) {
        if (statusOf(error) === 404) return false;
        throw error;
      }
    });
  }

  async buildImage(contextDir: string, files: readonly string[], dockerfile: string, tag: string, onProgress: BuildProgress): Promise<void> {
    const stream = await guard(() => this.docker.buildImage({ context: contextDir, src: [...files] }, { t: tag, dockerfile, rm: true, forcerm: true }));
    await new Promise<void>((resolve, reject) => {
      this.docker.modem.followProgress(
        stream,
        (error: Error | null, events: { error?: string; errorDetail?: { message?: string } }[]) => {
          const failed = error?.message ?? events.find((event) => event.error)?.error;
          if (failed) reject(new AppError("internal", `Building the sandbox image ${tag} failed: ${failed}`));
          else resolve();
        },
        (event: { stream?: string; status?: string; error?: string }) => {
          const text = (event.stream ?? event.status ?? event.error ?? "").trimEnd();
          if (text) for (const line of text.split("\n")) onProgress(line);
        },
      );
    });
  }

  async create(spec: ContainerSpec): Promise<string> {
    const container = await guard(() =>
      this.docker.createContainer({
        name: spec.name,
        Image: spec.image,
        User: spec.user,
        Env: [...spec.env],
        Labels: { ...spec.labels },
        WorkingDir: spec.workingDir,
        Cmd: [...spec.command],
        Tty: false,
        OpenStdin: false,
        HostConfig: {
          NetworkMode: spec.networkMode,
          CapDrop: ["ALL"],
          ...(spec.capAdd.length === 0 ? {} : { CapAdd: [...spec.capAdd] }),
          SecurityOpt: ["no-new-privileges:true", seccompSecurityOpt()],
          Privileged: false,
          ReadonlyRootfs: true,
          Init: true,
          IpcMode: "private",
          Mounts: spec.mounts.map((mount) =>
            mount.type === "tmpfs"
              ? { Type: "tmpfs" as const, Source: "", Target: mount.target, ReadOnly: true, TmpfsOptions: { SizeBytes: 4096, Mode: 0o555 } }
              : { Type: "bind" as const, Source: mount.source, Target: mount.target, ReadOnly: mount.readOnly, BindOptions: { Propagation: "rprivate" as const } },
          ),
          Tmpfs: { ...spec.tmpfs },
          Memory: spec.memoryMb * 1024 * 1024,
          MemorySwap: spec.memoryMb * 1024 * 1024,
          NanoCpus: Math.round(spec.cpus * 1e9),
          PidsLimit: spec.pids > 0 ? spec.pids : -1,
          ...(spec.maxUserProcesses === undefined ? {} : { Ulimits: [{ Name: "nproc", Soft: spec.maxUserProcesses, Hard: spec.maxUserProcesses }] }),
          LogConfig: { Type: "json-file", Config: { "max-size": String(spec.logMaxBytes), "max-file": "1" } },
          RestartPolicy: { Name: "no" },
          ...(spec.runtime === undefined ? {} : { Runtime: spec.runtime }),
        },
      }),
    );
    return container.id;
  }

  async start(id: string): Promise<void> {
    await guard(async () => {
      try {
        await this.docker.getContainer(id).start();
      } catch (error) {
        if (statusOf(error) !== 304) throw error; // already running
      }
    });
  }

  async stop(id: string, timeoutS: number): Promise<void> {
    await guard(async () => {
      try {
        await this.docker.getContainer(id).stop({ t: timeoutS });
      } catch (error) {
        if (statusOf(error) !== 304 && statusOf(error) !== 404) throw error;
      }
    });
  }

  async remove(id: string): Promise<void> {
    await guard(async () => {
      try {
        await this.docker.getContainer(id).remove({ force: true, v: true });
      } catch (error) {
        if (statusOf(error) !== 404 && !/already in progress/.test(String(error))) throw error;
      }
    });
  }

  async inspect(id: string): Promise<ContainerState | undefined> {
    return guard(async () => {
      try {
        const data = await this.docker.getContainer(id).inspect();
        return {
          id: data.Id,
          name: data.Name.replace(/^\//, ""),
          running: data.State.Running,
          status: data.State.Status,
          exitCode: data.State.ExitCode,
          oomKilled: data.State.OOMKilled,
          labels: data.Config.Labels ?? {},
        };
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw error;
      }
    });
  }

  async list(labels: Readonly<Record<string, string>>): Promise<ContainerState[]> {
    const filters = { label: Object.entries(labels).map(([key, value]) => `${key}=${value}`) };
    const containers = await guard(() => this.docker.listContainers({ all: true, filters }));
    return containers.map((summary) => ({
      id: summary.Id,
      name: (summary.Names[0] ?? "").replace(/^\//, ""),
      running: summary.State === "running",
      status: summary.State,
      exitCode: Number(/Exited \((\d+)\)/.exec(summary.Status)?.[1] ?? 0),
      oomKilled: false,
      labels: summary.Labels ?? {},
    }));
  }

  /**
   * Runs a program to completion under a deadline (options.timeoutMs, DEFAULT_EXEC_DEADLINE_MS
   * by default): the container kills the program when it passes, and the host stops waiting
   * soon after. An abort of options.signal also stops the wait.
   */
  async exec(id: string, options: ExecOptions): Promise<ExecResult> {
    const deadlineMs = options.timeoutMs ?? DEFAULT_EXEC_DEADLINE_MS;
    const deadline = AbortSignal.timeout(deadlineMs + HOST_DEADLINE_GRACE_MS);
    const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);
    const what = `'${options.argv.slice(0, 3).join(" ")}' in container ${id.slice(0, 12)}`;
    const timedOut = (cause?: unknown) =>
      new AppError("timeout", `${what} did not finish within ${deadlineMs} ms and was killed. Check what the worker's workspace makes it wait for (e.g. a FIFO or a huge repository), then retry.`, { cause });
    const startedMs = Date.now();
    try {
      const result = await raceAbort(this.execAttached(id, killAfterArgv(options.argv, deadlineMs), options, signal), signal);
      // The container's `timeout` got there first: it SIGKILLed the program.
      if (result.exitCode === KILLED_EXIT_CODE && Date.now() - startedMs >= deadlineMs) throw timedOut();
      return result;
    } catch (error) {
      if (error instanceof AppError && error.code === "timeout") throw error;
      if (options.signal?.aborted) {
        throw new AppError("conflict", `${what} was interrupted: ${reasonOf(options.signal)}. The operation was abandoned; retry it once the worker is running again.`, { cause: error });
      }
      if (deadline.aborted) throw timedOut(error);
      throw error;
    }
  }

  private async execAttached(id: string, argv: readonly string[], options: ExecOptions, signal: AbortSignal): Promise<ExecResult> {
    const session = await this.attachInternal(id, argv, options, options.stdin !== undefined);
    const maxBytes = options.maxBufferBytes ?? DEFAULT_MAX_EXEC_BUFFER_BYTES;
    const stdout = options.stdoutSink === undefined ? collect(session.stdout, maxBytes) : pipeInto(session.stdout, options.stdoutSink);
    const stderr = collect(session.stderr, maxBytes);
    const onAbort = () => session.close();
    if (signal.aborted) session.close();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      if (options.stdin !== undefined) session.stdin.end(options.stdin);
      const [exitCode, out, err] = await Promise.all([session.exited, stdout, stderr]);
      return { exitCode, stdout: out, stderr: err };
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  attach(id: string, argv: readonly string[], options: AttachOptions = {}): Promise<ExecSession> {
    return this.attachInternal(id, argv, options, true);
  }

  private async attachInternal(id: string, argv: readonly string[], options: AttachOptions, withStdin: boolean): Promise<ExecSession> {
    const { exec, stream } = await guard(async () => {
      const exec = await this.docker.getContainer(id).exec({
        Cmd: [...argv],
        User: options.user ?? this.defaultUser,
        ...(options.workingDir === undefined ? {} : { WorkingDir: options.workingDir }),
        AttachStdin: withStdin,
        AttachStdout: true,
        AttachStderr: true,
        Tty: options.terminal !== undefined,
        ...(options.env === undefined ? {} : { Env: [...options.env] }),
      });
      const stream = await exec.start({ hijack: true, stdin: withStdin, Tty: options.terminal !== undefined });
      if (options.terminal !== undefined) await exec.resize({ w: options.terminal.columns, h: options.terminal.rows });
      return { exec, stream };
    });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    // A terminal's output comes as one raw stream; otherwise Docker multiplexes the two.
    if (options.terminal === undefined) this.docker.modem.demuxStream(stream, stdout, stderr);
    else stream.pipe(stdout);
    // Under gVisor (runsc) an exec's stream stays open when its container dies (killed, out
    // of memory): end it when the container stops, so nothing waits on a dead sandbox.
    const watch = new AbortController();
    this.docker
      .getContainer(id)
      .wait({ condition: "not-running", abortSignal: watch.signal })
      .then(() => (stream as unknown as { destroy?: () => void }).destroy?.(), () => undefined);
    const exited = new Promise<number>((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        watch.abort();
        stdout.end();
        stderr.end();
        exitCodeOf(exec).then(resolve, () => resolve(-1));
      };
      stream.on("end", finish);
      stream.on("close", finish);
      stream.on("error", finish);
    });
    const stdin = withStdin
      ? new Writable({
          write(chunk: Buffer, _encoding, callback) {
            stream.write(chunk, callback);
          },
          final(callback) {
            (stream as unknown as { end(cb: () => void): void }).end(() => callback());
          },
        })
      : new Writable({ write: (_chunk, _encoding, callback) => callback() });
    stdin.on("error", () => undefined);
    return {
      stdin,
      stdout,
      stderr,
      exited,
      close: () => {
        stdin.end();
        (stream as unknown as { destroy?: () => void }).destroy?.();
      },
      resize: async (columns, rows) => {
        if (options.terminal !== undefined) await guard(() => exec.resize({ w: columns, h: rows }));
      },
    };
  }
}

async function exitCodeOf(exec: Docker.Exec): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const state = await exec.inspect();
    if (!state.Running && state.ExitCode !== null) return state.ExitCode;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return -1;
}

function collect(stream: NodeJS.ReadableStream, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      if (size >= maxBytes) return;
      chunks.push(chunk.subarray(0, maxBytes - size));
      size += chunk.length;
    });
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

function pipeInto(stream: NodeJS.ReadableStream, sink: Writable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    stream.pipe(sink);
    sink.on("finish", () => resolve(Buffer.alloc(0)));
    stream.on("error", reject);
    sink.on("error", reject);
  });
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : String(reason ?? "aborted");
}

function statusOf(error: unknown): number | undefined {
  return typeof error === "object" && error !== null ? (error as { statusCode?: number }).statusCode : undefined;
}

const UNREACHABLE = /ENOENT|ECONNREFUSED|EACCES|connect|socket hang up/i;

/** Runs a Docker call, turning "no engine" into a docker_unavailable error that says how to fix it. */
async function guard<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (statusOf(error) === undefined && UNREACHABLE.test(String((error as Error)?.message ?? error))) {
      throw dockerUnavailable(error);
    }
    throw error;
  }
}

/** The error for an engine that does not answer, with the fix. */
export function dockerUnavailable(cause: unknown): AppError {
  return new AppError(
    "docker_unavailable",
    "No Docker engine answers. Start one (e.g. 'sudo systemctl start docker', or run 'sudo scripts/ensure-docker.sh' from the workcell checkout, which installs and starts dockerd), or point DOCKER_HOST at a reachable engine.",
    { cause },
  );
}
