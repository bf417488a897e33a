import type { ContainerDriver, ExecSession } from "../docker/container-driver.js";
import { isGvisorRuntime, type RuntimeCatalog } from "../docker/runtime-choice.js";
import { openSessionSocket, SocketHandshakeError } from "../mcp/socket-session.js";
import { MCP_SOCKET_ARG } from "../../contract/container.js";
import { mcpServerArgv, TOOLS_EXEC } from "./in-container.js";

/** Where an MCP server is started: the container, its control directory on the host, and its runtime. */
export interface McpTarget {
  readonly containerId: string;
  readonly runDir: string;
  /** The OCI runtime (absent: unknown); a runtime whose containers cannot reach a host socket falls back to stdio. */
  readonly runtime?: string | undefined;
}

/** Which runtimes' sessions go over a socket: all, none, or those the function picks (by runtime name). */
export type SocketRuntimes = boolean | ((runtime: string | undefined) => boolean);

/** The control plane's rule: a session socket for every runtime of the engine's but gVisor (see McpServers). */
export function socketsOutsideGvisor(catalog: RuntimeCatalog): SocketRuntimes {
  return (runtime) => !isGvisorRuntime(catalog, runtime);
}

/**
 * Starts in-container MCP servers. Under runc each session gets a one-time socket in the
 * worker's control directory, which the server connects to, so calls skip the engine's exec
 * stream (its copies through the shim and the engine). Under gVisor sessions stay on the
 * exec's stdio: there a host socket is faster when the machine is idle, but while other
 * workers keep the cores busy its slowest calls took 10-30 times longer than over stdio
 * (p99 250-500 ms against 15-100 ms, in the same runs), so `sockets` leaves gVisor out. Where
 * a socket fails — a control directory whose path is too long for one, a server that cannot
 * connect — the session goes over stdio as well, and for a runtime whose server could not
 * connect, every later session does too.
 */
export class McpServers {
  private readonly stdioOnly = new Set<string>();

  constructor(
    private readonly driver: ContainerDriver,
    private readonly options: { sockets?: SocketRuntimes; handshakeMs?: number } = {},
  ) {}

  /** Whether a session under `runtime` is started over a socket (else over stdio). */
  usesSocket(runtime: string | undefined): boolean {
    const { sockets = true } = this.options;
    const chosen = typeof sockets === "function" ? sockets(runtime) : sockets;
    return chosen && !this.stdioOnly.has(runtime ?? "");
  }

  async start(target: McpTarget, env: readonly string[]): Promise<ExecSession> {
    const runtime = target.runtime ?? "";
    if (this.usesSocket(target.runtime)) {
      const session = await this.overSocket(target, env).catch((error: unknown) => {
        if (error instanceof SocketHandshakeError) this.stdioOnly.add(runtime);
        else if (!(error instanceof SocketUnavailable)) throw error;
        return undefined;
      });
      if (session !== undefined) return session;
    }
    return this.driver.attach(target.containerId, mcpServerArgv(), { ...TOOLS_EXEC, env });
  }

  /** Whether sessions under `runtime` go over stdio because a server could not connect to its socket. */
  fellBackToStdio(runtime: string): boolean {
    return this.stdioOnly.has(runtime);
  }

  private async overSocket(target: McpTarget, env: readonly string[]): Promise<ExecSession> {
    const socket = await openSessionSocket(target.runDir).catch((error: unknown) => {
      throw new SocketUnavailable(error instanceof Error ? error.message : String(error));
    });
    let exec: ExecSession;
    try {
      exec = await this.driver.attach(target.containerId, mcpServerArgv(MCP_SOCKET_ARG, socket.name), {
        ...TOOLS_EXEC,
        env,
      });
    } catch (error) {
      await socket.close();
      throw error;
    }
    try {
      return await socket.connect(exec, this.options.handshakeMs);
    } catch (error) {
      exec.close();
      throw error;
    }
  }
}

/** The control directory could not hold a socket (the session goes over stdio, this once). */
class SocketUnavailable extends Error {}
