import { randomBytes } from "node:crypto";
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
} from "../docker/container-driver.js";
import { sandboxUser } from "../docker/container-spec.js";
import { recordOf, type ExecRecord, type ProgramRequest } from "./exec-record.js";
import { awaitExec } from "./fake-exec.js";
import { createFakeContainer, haltContainer, runInContainer, stateOf, type FakeContainer } from "./fake-container.js";
import { engineError } from "./engine-error.js";
import {
  KILLED_EXIT_CODE,
  matchesArgv,
  reply,
  runUntilKilled,
  type FakeProgram,
  type ProgramMatch,
  type RunningProcess,
} from "./fake-process.js";
import { InjectedFailures, type DriverOperation } from "./injected-failures.js";

export type { ExecRecord } from "./exec-record.js";
export type { DriverOperation } from "./injected-failures.js";

/** What the fake engine is like. */
export interface InMemoryDriverOptions {
  /** Images the engine has; creating from any other is refused, as by an engine that cannot pull. */
  readonly images?: readonly string[];
  /** The sandbox user execs run as when they name none; sandboxUser() of this process when absent, as for DockerDriver. */
  readonly sandboxUser?: { readonly uid: number; readonly gid: number };
  /** The exit code a stopped container reports (143 by default: SIGTERM, passed on by the container's init). */
  readonly stopExitCode?: number;
  /** Facts `info()` answers instead of the defaults. */
  readonly info?: Partial<EngineInfo>;
}

const STOPPED_BY_SIGTERM = 143;
const DEFAULT_RUNTIMES = ["runc"];

/**
 * A ContainerDriver without an engine, for unit tests. Containers keep their spec and a
 * lifecycle like Docker's (created → running → exited; start, stop and remove answer as
 * DockerDriver does, errors included); execs and attaches run fake programs the test
 * registers per argv (unregistered: exit 0, no output; a main command unregistered runs
 * until stopped). Stopping or removing a container kills what runs in it. `failNext` makes
 * the next call of an operation fail, and `execs` records what was run.
 */
export class InMemoryContainerDriver implements ContainerDriver {
  /** Every exec and attach, oldest first. */
  readonly execs: ExecRecord[] = [];
  private readonly containers = new Map<string, FakeContainer>();
  private readonly images: Set<string>;
  private readonly programs: { match: ProgramMatch; program: FakeProgram }[] = [];
  private readonly failures = new InjectedFailures();
  private readonly defaultUser: string;
  private readonly stopExitCode: number;
  private created = 0;

  constructor(private readonly options: InMemoryDriverOptions = {}) {
    this.images = new Set(options.images ?? []);
    const user = options.sandboxUser ?? sandboxUser(process.getuid?.() ?? 1000, process.getgid?.() ?? 1000);
    this.defaultUser = `${user.uid}:${user.gid}`;
    this.stopExitCode = options.stopExitCode ?? STOPPED_BY_SIGTERM;
  }

  /** Runs `program` for every argv `match` accepts (the latest registration that matches wins). */
  onExec(match: ProgramMatch, program: FakeProgram): void {
    this.programs.unshift({ match, program });
  }

  /** Makes the next call of `operation` fail with `error` before it does anything; calls queue up. */
  failNext(
    operation: DriverOperation,
    error: unknown = engineError(500, "server error", `injected failure of ${operation}`),
  ): void {
    this.failures.add(operation, error);
  }

  /** Gives the engine an image. */
  addImage(tag: string): void {
    this.images.add(tag);
  }

  /** The container's main process ends on its own (a crash, or the kernel's OOM killer): it exits and takes its programs with it. */
  exitContainer(id: string, outcome: { exitCode: number; oomKilled?: boolean }): void {
    const container = this.containers.get(id);
    if (container?.running !== true) throw new Error(`exitContainer: container ${id} is not running; start it first.`);
    haltContainer(container, outcome.exitCode, outcome.oomKilled ?? false);
  }

  async info(): Promise<EngineInfo> {
    this.failures.take("info");
    return {
      serverVersion: "in-memory",
      apiVersion: "1.47",
      os: "in-memory",
      containers: this.containers.size,
      cpus: 2,
      memoryBytes: 4 * 1024 ** 3,
      runtimes: DEFAULT_RUNTIMES,
      defaultRuntime: "runc",
      runcVersion: undefined,
      ...this.options.info,
    };
  }

  async imageExists(tag: string): Promise<boolean> {
    this.failures.take("imageExists");
    return this.images.has(tag);
  }

  async buildImage(
    _contextDir: string,
    _files: readonly string[],
    _dockerfile: string,
    tag: string,
    onProgress: BuildProgress,
  ): Promise<void> {
    this.failures.take("buildImage");
    onProgress(`Successfully tagged ${tag}`);
    this.images.add(tag);
  }

  async create(spec: ContainerSpec): Promise<string> {
    this.failures.take("create");
    if (!this.images.has(spec.image)) throw engineError(404, "no such container", `No such image: ${spec.image}`);
    const taken = [...this.containers.values()].find((container) => container.spec.name === spec.name);
    if (taken !== undefined) {
      throw engineError(
        409,
        "unexpected",
        `Conflict. The container name "/${spec.name}" is already in use by container "${taken.id}". You have to remove (or rename) that container to be able to reuse that name.`,
      );
    }
    if (spec.runtime !== undefined && !(this.options.info?.runtimes ?? DEFAULT_RUNTIMES).includes(spec.runtime))
      throw engineError(400, "bad parameter", `Unknown runtime specified ${spec.runtime}`);
    const id = randomBytes(32).toString("hex");
    this.created += 1;
    this.containers.set(id, createFakeContainer(id, spec, this.created));
    return id;
  }

  async start(id: string): Promise<void> {
    this.failures.take("start");
    const container = this.find(id);
    if (container.running) return;
    Object.assign(container, { running: true, status: "running", exitCode: 0, oomKilled: false });
    const main = this.spawn(container, { kind: "main", argv: container.spec.command, user: container.spec.user });
    main.stdin.end();
    main.stdout.resume();
    main.stderr.resume();
    container.main = main;
    void main.exited.then((exitCode) => {
      if (container.main === main && container.running) haltContainer(container, exitCode, false);
    });
  }

  async stop(id: string, _timeoutS: number): Promise<void> {
    this.failures.take("stop");
    const container = this.containers.get(id);
    if (container?.running === true) haltContainer(container, this.stopExitCode, false);
  }

  async remove(id: string): Promise<void> {
    this.failures.take("remove");
    const container = this.containers.get(id);
    if (container === undefined) return;
    if (container.running) haltContainer(container, KILLED_EXIT_CODE, false);
    this.containers.delete(id);
  }

  async inspect(id: string): Promise<ContainerState | undefined> {
    this.failures.take("inspect");
    const container = this.containers.get(id);
    return container === undefined ? undefined : stateOf(container);
  }

  async list(labels: Readonly<Record<string, string>>): Promise<ContainerState[]> {
    this.failures.take("list");
    const wanted = Object.entries(labels);
    return (
      [...this.containers.values()]
        .filter((container) => wanted.every(([key, value]) => container.spec.labels[key] === value))
        .sort((a, b) => b.order - a.order)
        // The engine's container list does not say whether the OOM killer struck; only inspect does.
        .map((container) => ({ ...stateOf(container), oomKilled: false }))
    );
  }

  /** Runs the argv's program to completion; a deadline (options.timeoutMs or the default) kills it and fails with `timeout`. */
  async exec(id: string, options: ExecOptions): Promise<ExecResult> {
    this.failures.take("exec");
    const container = this.requireRunning(id);
    const { argv, env, user, workingDir, stdin } = options;
    const running = this.spawn(container, { kind: "exec", argv, env, user, workingDir, stdin });
    running.stdin.end(options.stdin);
    return awaitExec(running, options, `'${argv.slice(0, 3).join(" ")}' in container ${id.slice(0, 12)}`);
  }

  async attach(id: string, argv: readonly string[], options: AttachOptions = {}): Promise<ExecSession> {
    this.failures.take("attach");
    const container = this.requireRunning(id);
    const running = this.spawn(container, { kind: "attach", argv, ...options });
    const record = this.execs.at(-1);
    return {
      stdin: running.stdin,
      stdout: running.stdout,
      stderr: running.stderr,
      exited: running.exited,
      close: () => running.close(),
      resize: async (columns, rows) => {
        if (options.terminal !== undefined) record?.terminalSizes.push({ columns, rows });
      },
    };
  }

  /** Starts a program in the container; execs and attaches are recorded, the main command is not. */
  private spawn(container: FakeContainer, request: ProgramRequest): RunningProcess {
    const resolved = {
      ...request,
      user: request.user ?? this.defaultUser,
      workingDir: request.workingDir ?? container.spec.workingDir,
      env: request.env ?? [],
    };
    if (request.kind !== "main") this.execs.push(recordOf(container.id, request.kind, resolved));
    // An unregistered exec answers at once; an unregistered main command keeps the container up.
    const program = this.programFor(request.argv) ?? (request.kind === "main" ? runUntilKilled : reply());
    return runInContainer(container, program, resolved);
  }

  private programFor(argv: readonly string[]): FakeProgram | undefined {
    return this.programs.find(({ match }) => matchesArgv(match, argv))?.program;
  }

  private find(id: string): FakeContainer {
    const container = this.containers.get(id);
    if (container === undefined) throw engineError(404, "no such container", `No such container: ${id}`);
    return container;
  }

  private requireRunning(id: string): FakeContainer {
    const container = this.find(id);
    if (!container.running) throw engineError(409, "container stopped/paused", `Container ${id} is not running`);
    return container;
  }
}
