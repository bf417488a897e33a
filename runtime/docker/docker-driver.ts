import Docker from "dockerode";
import { readInspectedState, readListedState, toCreateOptions } from "./container-config.js";
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
import { runExecToEnd, type OpenExec } from "./docker-exec.js";
import { openExecSession } from "./docker-exec-session.js";
import { buildDockerImage, checkImageExists } from "./docker-images.js";
import { statusOf, translateEngineErrors } from "./engine-errors.js";
import { readEngineInfo } from "./engine-info.js";

export { dockerUnavailable } from "./engine-errors.js";

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
  /** Opens execs for `exec` and `attach` alike; `exec` never goes through `attach`, which callers may wrap. */
  private readonly openExec: OpenExec;

  constructor(options: DockerDriverOptions = {}) {
    this.docker = new Docker(options.engine);
    const user = options.sandboxUser ?? sandboxUser(process.getuid?.() ?? 1000, process.getgid?.() ?? 1000);
    this.defaultUser = `${user.uid}:${user.gid}`;
    this.openExec = (id, argv, attachOptions, withStdin) =>
      openExecSession(this.docker, id, argv, attachOptions, { withStdin, defaultUser: this.defaultUser });
  }

  async info(): Promise<EngineInfo> {
    const [info, version] = await translateEngineErrors(() => Promise.all([this.docker.info(), this.docker.version()]));
    return readEngineInfo(info, version);
  }

  imageExists(tag: string): Promise<boolean> {
    return checkImageExists(this.docker, tag);
  }

  buildImage(
    contextDir: string,
    files: readonly string[],
    dockerfile: string,
    tag: string,
    onProgress: BuildProgress,
  ): Promise<void> {
    return buildDockerImage(this.docker, contextDir, files, dockerfile, tag, onProgress);
  }

  async create(spec: ContainerSpec): Promise<string> {
    const container = await translateEngineErrors(() => this.docker.createContainer(toCreateOptions(spec)));
    return container.id;
  }

  async start(id: string): Promise<void> {
    await translateEngineErrors(async () => {
      try {
        await this.docker.getContainer(id).start();
      } catch (error) {
        if (statusOf(error) !== 304) throw error; // already running
      }
    });
  }

  async stop(id: string, timeoutS: number): Promise<void> {
    await translateEngineErrors(async () => {
      try {
        await this.docker.getContainer(id).stop({ t: timeoutS });
      } catch (error) {
        if (statusOf(error) !== 304 && statusOf(error) !== 404) throw error;
      }
    });
  }

  async remove(id: string): Promise<void> {
    await translateEngineErrors(async () => {
      try {
        await this.docker.getContainer(id).remove({ force: true, v: true });
      } catch (error) {
        if (statusOf(error) !== 404 && !/already in progress/.test(String(error))) throw error;
      }
    });
  }

  async inspect(id: string): Promise<ContainerState | undefined> {
    return translateEngineErrors(async () => {
      try {
        return readInspectedState(await this.docker.getContainer(id).inspect());
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw error;
      }
    });
  }

  async list(labels: Readonly<Record<string, string>>): Promise<ContainerState[]> {
    const filters = { label: Object.entries(labels).map(([key, value]) => `${key}=${value}`) };
    const containers = await translateEngineErrors(() => this.docker.listContainers({ all: true, filters }));
    return containers.map(readListedState);
  }

  /**
   * Runs a program to completion under a deadline (options.timeoutMs, DEFAULT_EXEC_DEADLINE_MS
   * by default): the container kills the program when it passes, and the host stops waiting
   * soon after. An abort of options.signal also stops the wait.
   */
  exec(id: string, options: ExecOptions): Promise<ExecResult> {
    return runExecToEnd(this.openExec, id, options);
  }

  attach(id: string, argv: readonly string[], options: AttachOptions = {}): Promise<ExecSession> {
    return this.openExec(id, argv, options, true);
  }
}
