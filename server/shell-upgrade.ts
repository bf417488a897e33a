import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { Context } from "hono";
import { z } from "zod";
import { AppError } from "../runtime/errors/app-error.js";
import { ShellTerminalSchema, type InteractiveShell } from "../runtime/workers/interactive-shell.js";
import type { WorkerSessions } from "../runtime/workers/workers.js";
import { encodeFrame, FrameDecoder, SHELL_PROTOCOL } from "../contract/shell-frames.js";

/** The query of `GET /v1/workers/:id/shell`: the client's terminal. */
export const ShellQuerySchema = z
  .object({
    columns: z
      .string()
      .regex(/^\d{1,4}$/)
      .optional()
      .describe("The terminal's width in columns, 1 to 1000 (default 80)"),
    rows: z
      .string()
      .regex(/^\d{1,4}$/)
      .optional()
      .describe("The terminal's height in rows, 1 to 1000 (default 24)"),
    term: z.string().optional().describe("The terminal type, e.g. xterm-256color (the default)"),
  })
  .strict();

/** The header the upgrade handler marks its own requests with (its value is this process's secret). */
const UPGRADE_HEADER = "x-workcell-upgrade";
/** The header the route answers with the key of the shell it opened. */
const SHELL_KEY_HEADER = "x-workcell-shell";

/**
 * Interactive shells over HTTP: `GET /v1/workers/:id/shell?columns=&rows=&term=` with
 * `Connection: Upgrade` and `Upgrade: workcell-shell`. The request goes through the app
 * like any other (host guard, bearer token, errors as JSON); the route opens the shell and
 * hands it here by key, and the connection then carries frames (contract/shell-frames.ts).
 */
export class ShellUpgrades {
  private readonly secret = randomBytes(24).toString("hex");
  private readonly opened = new Map<string, InteractiveShell>();
  private readonly sockets = new Set<Duplex>();

  /** The route that opens a shell; refuses a plain GET, which could not carry it. */
  route(sessions: Pick<WorkerSessions, "openShell">) {
    return async (c: Context) => {
      if (c.req.header(UPGRADE_HEADER) !== this.secret) {
        throw new AppError(
          "invalid_input",
          `GET /v1/workers/:id/shell opens an interactive shell: send it with 'Connection: Upgrade' and 'Upgrade: ${SHELL_PROTOCOL}' (the CLI's 'workcell shell <id>' from a terminal does), or run commands with POST /v1/workers/:id/exec.`,
        );
      }
      const query = ShellQuerySchema.safeParse(c.req.query());
      const parsed = ShellTerminalSchema.safeParse(
        query.success
          ? {
              columns: Number(query.data.columns ?? 80),
              rows: Number(query.data.rows ?? 24),
              ...(query.data.term === undefined ? {} : { term: query.data.term }),
            }
          : undefined,
      );
      if (!query.success || !parsed.success) {
        const issues = query.success ? (parsed.error?.issues ?? []) : query.error.issues;
        const problems = issues.map((issue) => `${issue.path.join(".") || "query"}: ${issue.message}`).join("; ");
        throw new AppError(
          "invalid_input",
          `Invalid terminal for the shell: ${problems}. Send columns and rows as whole numbers from 1 to 1000, and term like xterm-256color.`,
        );
      }
      const shell = await sessions.openShell(c.req.param("id") ?? "", parsed.data);
      const key = randomUUID();
      this.opened.set(key, shell);
      return c.body(null, 200, { [SHELL_KEY_HEADER]: key });
    };
  }

  /** Handles an HTTP server's upgrade requests through `fetch` (the app). */
  async handle(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    fetch: (request: Request) => Response | Promise<Response>,
  ): Promise<void> {
    socket.on("error", () => undefined);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined || ["connection", "upgrade", UPGRADE_HEADER].includes(name)) continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    if ((request.headers.upgrade ?? "").toLowerCase() === SHELL_PROTOCOL) headers.set(UPGRADE_HEADER, this.secret);
    const response = await fetch(
      new Request(`http://${request.headers.host ?? "localhost"}${request.url ?? "/"}`, {
        method: request.method ?? "GET",
        headers,
      }),
    );
    const key = response.headers.get(SHELL_KEY_HEADER);
    const shell = key === null ? undefined : this.opened.get(key);
    if (key !== null) this.opened.delete(key);
    if (shell === undefined || response.status !== 200) {
      const body = Buffer.from(await response.arrayBuffer());
      const lines = [
        `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}`,
        `Content-Length: ${body.length}`,
        "Connection: close",
      ];
      for (const name of ["content-type", "www-authenticate"]) {
        const value = response.headers.get(name);
        if (value !== null) lines.push(`${name}: ${value}`);
      }
      socket.end(Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), body]));
      return;
    }
    if (socket.destroyed) {
      shell.close();
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${SHELL_PROTOCOL}\r\n\r\n`);
    this.connect(shell, socket, head);
  }

  /** Ends every open shell (the control plane is stopping). */
  closeAll(): void {
    for (const socket of this.sockets) socket.destroy();
    for (const shell of this.opened.values()) shell.close();
    this.opened.clear();
  }

  private connect(shell: InteractiveShell, socket: Duplex, head: Buffer): void {
    this.sockets.add(socket);
    (socket as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
    const decoder = new FrameDecoder();
    const receive = (chunk: Buffer) => {
      try {
        for (const frame of decoder.push(chunk)) {
          if (frame.kind === "data") shell.write(frame.data);
          else if (frame.kind === "resize")
            void shell
              .resize(Math.min(Math.max(frame.columns, 1), 1000), Math.min(Math.max(frame.rows, 1), 1000))
              .catch(() => undefined);
        }
      } catch {
        socket.destroy();
      }
    };
    if (head.length > 0) receive(head);
    socket.on("data", receive);
    shell.output.on("data", (chunk: Buffer) => socket.write(encodeFrame({ kind: "data", data: chunk })));
    // The server keeps upgraded sockets half-open: the client's end is the end of the shell.
    socket.on("end", () => socket.destroy());
    socket.on("close", () => {
      this.sockets.delete(socket);
      shell.close();
    });
    void shell.exited.then((code) => {
      if (!socket.destroyed) socket.end(encodeFrame({ kind: "exit", code }));
    });
  }
}
