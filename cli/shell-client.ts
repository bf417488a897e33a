import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Duplex } from "node:stream";
import type { ShellTerminal } from "../client/index.js";
import { encodeFrame, FrameDecoder } from "../contract/shell-frames.js";
import { createClient, refused, unreachable, type Connection } from "./connection.js";

/** The terminal the CLI runs in. */
export interface TerminalIo {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly term: string | undefined;
}

/** Opens the upgraded connection of `GET /v1/workers/:id/shell`, or throws the server's refusal. */
export function connectShell(
  connection: Connection,
  id: string,
  terminal: ShellTerminal,
): Promise<{ socket: Duplex; head: Buffer }> {
  // The client builds the request (address, token, terminal); fetch cannot upgrade, so the socket is opened here.
  const shell = createClient(connection).shellRequest(id, terminal);
  const url = new URL(shell.url);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, { headers: shell.headers });
    request.on("upgrade", (_response, socket, head) => resolve({ socket, head }));
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          // Not JSON: the status says it.
        }
        reject(refused(response.statusCode ?? 0, body));
      });
    });
    request.on("error", (error: NodeJS.ErrnoException) => reject(unreachable(connection, error.code ?? error.message)));
    request.end();
  });
}

/**
 * An interactive shell in a worker on this terminal: raw keys go to the shell, its output
 * comes back, a resize follows the window. Answers the shell's exit status.
 */
export async function interactiveShell(connection: Connection, id: string, io: TerminalIo): Promise<number> {
  const { socket, head } = await connectShell(connection, id, {
    columns: io.stdout.columns || 80,
    rows: io.stdout.rows || 24,
    term: io.term,
  });
  const wasRaw = io.stdin.isRaw;
  io.stdin.setRawMode?.(true);
  io.stdin.resume();
  const send = (chunk: Buffer) => socket.write(encodeFrame({ kind: "data", data: chunk }));
  const onResize = () =>
    socket.write(encodeFrame({ kind: "resize", columns: io.stdout.columns || 80, rows: io.stdout.rows || 24 }));
  io.stdin.on("data", send);
  io.stdout.on("resize", onResize);
  try {
    return await new Promise<number>((resolve) => {
      const decoder = new FrameDecoder();
      let code: number | undefined;
      const receive = (chunk: Buffer) => {
        try {
          for (const frame of decoder.push(chunk)) {
            if (frame.kind === "data") io.stdout.write(frame.data);
            else if (frame.kind === "exit") code = frame.code;
          }
        } catch {
          socket.destroy();
        }
      };
      if (head.length > 0) receive(head);
      socket.on("data", receive);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        if (code === undefined) process.stderr.write("\r\nworkcell: the connection to the shell was lost\r\n");
        resolve(code ?? 255);
      });
    });
  } finally {
    io.stdin.off("data", send);
    io.stdout.off("resize", onResize);
    io.stdin.setRawMode?.(wasRaw);
    io.stdin.pause();
  }
}
