import type { ContainerDriver, ExecSession } from "../docker/container-driver.js";
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

/**
 * Starts in-container MCP servers. Each session gets a one-time socket in the worker's
 * control directory, which the server connects to, so calls skip the engine's exec stream
 * (its copies through the runtime's shim and the engine cost ~0.3 ms a round trip under
 * gVisor and make the slowest calls several times slower). Where that fails — a gVisor
 * registered without `--host-uds=open`, a control directory whose path is too long for a
 * socket — the session goes over the exec's stdio as before, and for a runtime whose
 * server could not connect, every later session does too.
 */
export class McpServers {
  private readonly stdioOnly = new Set<string>();

  constructor(
    private readonly driver: ContainerDriver,
    private readonly options: { sockets?: boolean; handshakeMs?: number } = {},
  ) {}

  async start(target: McpTarget, env: readonly string[]): Promise<ExecSession> {
    const runtime = target.runtime ?? "";
    if (this.options.sockets !== false && !this.stdioOnly.has(runtime)) {
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
