import type { ChildProcessWithoutNullStreams } from "node:child_process";

const REQUEST_TIMEOUT_MS = 60_000;
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

type Incoming = {
  id?: number;
  method?: string;
  params?: { items?: unknown[] };
  result?: unknown;
  error?: { message: string };
};

/**
 * LSP JSON-RPC over a language server's stdio (Content-Length framing): requests matched
 * to their answers by id, each with a deadline. The server's own requests get defaults
 * (workspace/configuration) or a plain acknowledgement. When the process exits, every
 * open request fails and later messages go nowhere.
 */
export class LspConnection {
  private nextId = 1;
  private buffer = Buffer.alloc(0);
  private exited = false;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }
  >();

  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    /** Told once the process has exited (after the open requests failed). */
    onExit: () => void,
  ) {
    child.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
    child.stderr.resume();
    child.on("exit", () => {
      this.exited = true;
      for (const { reject, timer } of this.pending.values()) {
        clearTimeout(timer);
        reject(new Error("the Python language server exited"));
      }
      this.pending.clear();
      onExit();
    });
  }

  /** Sends a notification (no answer expected). */
  notify(method: string, params: unknown): void {
    this.send({ method, params });
  }

  /** Sends a request; settles with its result, or rejects with its error or after the deadline. */
  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the Python language server did not answer ${method} within ${REQUEST_TIMEOUT_MS / 1000} s`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.send({ id, method, params });
    });
  }

  /** Ends the server process. */
  kill(): void {
    if (!this.exited) this.child.kill();
  }

  private send(message: Record<string, unknown>): void {
    if (this.exited) return;
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }), "utf8");
    this.child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]));
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf("\r\n\r\n");
      if (headerEnd === -1) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString("ascii"))?.[1]);
      if (!Number.isFinite(length) || length > MAX_MESSAGE_BYTES) {
        this.kill();
        return;
      }
      if (this.buffer.length < headerEnd + 4 + length) return;
      const message = JSON.parse(
        this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString("utf8"),
      ) as Incoming;
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      if (message.method !== undefined && message.id !== undefined) {
        // Requests from the server: configuration gets defaults, the rest a plain acknowledgement.
        const result =
          message.method === "workspace/configuration" ? (message.params?.items ?? []).map(() => null) : null;
        this.send({ id: message.id, result });
      } else if (message.id !== undefined) {
        const waiting = this.pending.get(message.id);
        if (waiting === undefined) continue;
        this.pending.delete(message.id);
        clearTimeout(waiting.timer);
        if (message.error) waiting.reject(new Error(message.error.message));
        else waiting.resolve(message.result);
      }
    }
  }
}
