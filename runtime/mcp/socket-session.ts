import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmod, rm } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import path from "node:path";
import type { ExecSession } from "../docker/container-driver.js";
import { MCP_PREFLIGHT_ID } from "../../contract/container.js";

/** How long the server has to connect once started (a cold start under gVisor takes ~1 s). */
export const SOCKET_HANDSHAKE_MS = 20_000;
/** Connections that have not shown the token yet, at most (a process in the sandbox may connect too). */
const MAX_UNPROVEN = 16;
const TOKEN_LINE_BYTES = 65;

/** The longest line read while waiting for the preflight answer. */
const MAX_PREFLIGHT_BYTES = 1024 * 1024;

/** A session's socket, waiting for its server: where the server connects, and the token it must show. */
export interface SessionSocket {
  /** The socket's file name in the control directory (what the server is told). */
  readonly name: string;
  /** Hands the started server its token and waits for its connection; the listener is gone afterwards. */
  connect(exec: ExecSession, timeoutMs?: number): Promise<ExecSession>;
  /** Removes the listener and its file (nothing happens after connect has settled). */
  close(): Promise<void>;
}

/** Why a session's server did not connect to its socket. */
export class SocketHandshakeError extends Error {
  override readonly name = "SocketHandshakeError";
}

/**
 * Opens a one-session socket in the worker's control directory (mounted in the container).
 * The in-container MCP server connects to it and writes the token the control plane gave it
 * on stdin; the first connection that shows the token carries the session, any other is
 * dropped, and the listener is closed and its file removed either way. The connection then
 * stands in for the server's stdio: no `docker exec` stream on the hot path.
 */
export async function openSessionSocket(runDir: string): Promise<SessionSocket> {
  const name = `mcp-${randomBytes(8).toString("hex")}.sock`;
  const socketPath = path.join(runDir, name);
  const token = randomBytes(32).toString("hex");
  const server = createServer();
  const unproven = new Set<Socket>();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.close();
    for (const socket of unproven) socket.destroy();
    unproven.clear();
    await rm(socketPath, { force: true });
  };
  try {
    // The server connects with the sandbox user's effective ids; the token, not the mode, keeps others out.
    await chmod(socketPath, 0o666);
  } catch (error) {
    await close();
    throw error;
  }
  const proven = new Promise<Socket>((resolve) => {
    server.on("connection", (socket) => {
      if (unproven.size >= MAX_UNPROVEN) return socket.destroy();
      unproven.add(socket);
      socket.on("error", () => socket.destroy());
      socket.on("close", () => unproven.delete(socket));
      void readLine(socket, TOKEN_LINE_BYTES).then((shown) => {
        unproven.delete(socket);
        const expected = Buffer.from(`${token}\n`);
        if (shown === undefined || shown.length !== expected.length || !timingSafeEqual(shown, expected)) {
          socket.destroy();
          return;
        }
        resolve(socket);
      });
    });
  });
  return {
    name,
    close,
    async connect(exec, timeoutMs = SOCKET_HANDSHAKE_MS) {
      let timer: NodeJS.Timeout | undefined;
      try {
        exec.stdin.write(`${token}\n`);
        const socket = await Promise.race([
          proven,
          exec.exited.then((code) => {
            throw new SocketHandshakeError(`the server exited (code ${code}) before connecting to its socket`);
          }),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new SocketHandshakeError(`the server did not connect within ${timeoutMs} ms`)),
              timeoutMs,
            );
          }),
        ]);
        await preflight(socket, exec, timeoutMs);
        return sessionOverSocket(exec, socket);
      } finally {
        clearTimeout(timer);
        await close();
      }
    },
  };
}

/**
 * Sends the connected server one MCP ping and waits for its answer, which is kept from the
 * session. The server's first message over its real channel then costs nothing at
 * `initialize`: reading, parsing, dispatching and writing run here, while the server waits
 * (a standby), instead of on the agent's first request (a few ms under gVisor). Anything
 * else the server wrote before the answer stays for the session.
 */
async function preflight(socket: Socket, exec: ExecSession, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const answered = (async () => {
    const kept: Buffer[] = [];
    let keptBytes = 0;
    for (;;) {
      const line = await readLine(socket, MAX_PREFLIGHT_BYTES - keptBytes);
      if (line === undefined)
        throw new SocketHandshakeError(
          "the server closed its socket or wrote too much before answering its preflight ping",
        );
      if (isPreflightAnswer(line)) break;
      kept.push(line);
      keptBytes += line.length;
    }
    if (kept.length > 0) socket.unshift(Buffer.concat(kept));
  })();
  socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: MCP_PREFLIGHT_ID, method: "ping" })}\n`);
  try {
    await Promise.race([
      answered,
      exec.exited.then((code) => {
        throw new SocketHandshakeError(`the server exited (code ${code}) before answering its preflight ping`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new SocketHandshakeError(`the server did not answer its preflight ping within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    socket.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads one line (with its newline) from a socket in paused mode, leaving whatever follows
 * it buffered for the next reader. Undefined when the socket ends, or `maxBytes` arrive, first.
 */
function readLine(socket: Socket, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    let line = Buffer.alloc(0);
    const finish = (result: Buffer | undefined) => {
      socket.off("readable", onReadable);
      socket.off("close", onClose);
      resolve(result);
    };
    const onClose = () => finish(undefined);
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = socket.read() as Buffer | null) !== null) {
        line = Buffer.concat([line, chunk]);
        const end = line.indexOf(0x0a);
        if (end !== -1 && end < maxBytes) {
          const rest = line.subarray(end + 1);
          if (rest.length > 0) socket.unshift(rest);
          return finish(line.subarray(0, end + 1));
        }
        if (line.length >= maxBytes) return finish(undefined);
      }
    };
    socket.on("readable", onReadable);
    socket.once("close", onClose);
  });
}

/** Whether a line is the answer to the preflight ping. */
function isPreflightAnswer(line: Buffer): boolean {
  try {
    const message = JSON.parse(line.toString("utf8")) as { id?: unknown; result?: unknown };
    return message.id === MCP_PREFLIGHT_ID && message.result !== undefined;
  } catch {
    return false;
  }
}

/** The session as an ExecSession whose stdin and stdout are the connection; the exec's own stream keeps its lifetime. */
function sessionOverSocket(exec: ExecSession, socket: Socket): ExecSession {
  socket.setNoDelay(true);
  // What the server writes to its stdout in this mode is nothing the session reads.
  exec.stdout.resume();
  socket.on("error", () => socket.destroy());
  socket.on("close", () => exec.close());
  return {
    stdin: socket,
    stdout: socket,
    stderr: exec.stderr,
    exited: exec.exited,
    close() {
      socket.destroy();
      exec.close();
    },
  };
}
