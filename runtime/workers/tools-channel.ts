import type { z } from "zod";
import type { ContainerDriver, ExecSession } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";
import { interpretAnswer, noAnswer, TOOLS_EXEC, toolsArgv } from "./in-container.js";
import {
  ChannelHelloSchema,
  ChannelReplySchema,
  type ChannelRequest,
  type ControlMode,
} from "../../contract/control.js";

/** How long a channel with nothing to do stays open: an idle worker then holds no tools process. */
export const CHANNEL_IDLE_MS = 60_000;
/** The longest answer line a channel takes (a full exec answer is far smaller). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** Why a channel ended with requests in flight. */
class ChannelEndedError extends Error {}

/**
 * One worker's control channel: a long-lived `workcell-tools serve` exec'd like every tools
 * program (root with three capabilities, acting as the sandbox user), answering requests by
 * id. Opened on first use; closed after CHANNEL_IDLE_MS without requests, when its container
 * ends, or on a request that outlives its deadline (the process may be wedged).
 */
class ToolsChannel {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private buffered = "";
  private idleTimer: NodeJS.Timeout | undefined;
  private ended = false;
  /** The process's pid in the container, as it announced it. */
  private pid: number | undefined;

  constructor(
    private readonly session: ExecSession,
    private readonly idleMs: number,
    private readonly onEnd: () => void,
    /** Kills the process by its pid (it may be wedged, and closing its stdin would not end it). */
    private readonly kill: (pid: number) => Promise<void>,
  ) {
    session.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
    session.stderr.resume();
    void session.exited.then(() => this.end(new ChannelEndedError("the tools channel ended")));
    this.armIdle();
  }

  request(mode: ControlMode, args: readonly string[], input: string, timeoutMs: number): Promise<unknown> {
    if (this.ended) return Promise.reject(new ChannelEndedError("the tools channel ended"));
    clearTimeout(this.idleTimer);
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(id);
        reject(new AppError("timeout", `The sandbox did not answer within ${timeoutMs} ms.`));
        // A request past its deadline may mean a wedged process: end it, and start afresh next time.
        if (this.pid !== undefined) void this.kill(this.pid).catch(() => undefined);
        this.close();
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      const line: ChannelRequest = { id, mode, args: [...args], input };
      this.session.stdin.write(`${JSON.stringify(line)}\n`);
    });
  }

  close(): void {
    this.session.close();
    this.end(new ChannelEndedError("the tools channel was closed"));
  }

  private receive(chunk: Buffer): void {
    this.buffered += chunk.toString("utf8");
    let end: number;
    while ((end = this.buffered.indexOf("\n")) !== -1) {
      const line = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 1);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      const hello = ChannelHelloSchema.safeParse(message);
      if (this.pid === undefined && hello.success) this.pid = hello.data.pid;
      const reply = ChannelReplySchema.safeParse(message);
      if (!reply.success || reply.data.id === null) continue;
      const pending = this.settle(reply.data.id);
      pending?.resolve(reply.data.answer);
    }
    if (this.buffered.length > MAX_ANSWER_BYTES) this.close();
  }

  /** Takes a request out of the pending set (idle again when none is left). */
  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    if (pending === undefined) return undefined;
    clearTimeout(pending.timer);
    this.pending.delete(id);
    this.armIdle();
    return pending;
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    if (this.pending.size === 0 && !this.ended) {
      this.idleTimer = setTimeout(() => this.close(), this.idleMs);
      this.idleTimer.unref();
    }
  }

  private end(error: Error): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idleTimer);
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(error);
    }
    this.onEnd();
  }
}

/**
 * The control channels of the workers' containers: `run`, `diff` and the like go to a
 * process that is already running instead of a fresh `docker exec` and Node start each.
 */
export class ToolsChannels {
  private readonly channels = new Map<string, Promise<ToolsChannel>>();

  constructor(
    private readonly driver: ContainerDriver,
    private readonly idleMs: number = CHANNEL_IDLE_MS,
  ) {}

  /** Runs a control mode in the container and validates its answer against `schema`. */
  async call<T>(
    containerId: string,
    mode: ControlMode,
    args: readonly string[],
    schema: z.ZodType<T, unknown>,
    options: { input?: string; timeoutMs: number },
  ): Promise<T> {
    let value: unknown;
    try {
      const channel = await this.open(containerId);
      value = await channel.request(mode, args, options.input ?? "", options.timeoutMs);
    } catch (error) {
      if (error instanceof ChannelEndedError) return noAnswer(this.driver, containerId, error.message);
      throw error;
    }
    return interpretAnswer(value, schema);
  }

  /** Closes every channel (the control plane is stopping). */
  async closeAll(): Promise<void> {
    const channels = [...this.channels.values()];
    this.channels.clear();
    for (const channel of channels) (await channel.catch(() => undefined))?.close();
  }

  private open(containerId: string): Promise<ToolsChannel> {
    let channel = this.channels.get(containerId);
    if (channel === undefined) {
      channel = this.driver.attach(containerId, toolsArgv("serve"), TOOLS_EXEC).then(
        (session) =>
          new ToolsChannel(
            session,
            this.idleMs,
            () => this.forget(containerId, channel),
            // As the container's root, which owns the channel's process.
            async (pid) =>
              void (await this.driver.exec(containerId, {
                argv: ["kill", "-KILL", String(pid)],
                user: TOOLS_EXEC.user,
                workingDir: "/",
                timeoutMs: 10_000,
              })),
          ),
        (error: unknown) => {
          this.forget(containerId, channel);
          throw error;
        },
      );
      this.channels.set(containerId, channel);
    }
    return channel;
  }

  private forget(containerId: string, channel: Promise<ToolsChannel> | undefined): void {
    if (this.channels.get(containerId) === channel) this.channels.delete(containerId);
  }
}
