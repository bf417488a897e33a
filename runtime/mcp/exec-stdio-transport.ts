import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ExecSession } from "../docker/container-driver.js";

/** Largest single message accepted from the container (a 10 MB file, JSON-escaped). */
export const MAX_CONTAINER_MESSAGE_BYTES = 64 * 1024 * 1024;
const STDERR_TAIL_CHARS = 4_000;

/**
 * An MCP transport over a `docker exec` session's stdin/stdout: newline-delimited JSON-RPC,
 * framed on bytes (a message may arrive in any number of chunks, or several in one).
 */
export class ExecStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly readBuffer = new ReadBuffer({ maxBufferSize: MAX_CONTAINER_MESSAGE_BYTES });
  private stderrTail = "";
  private closed = false;

  constructor(private readonly exec: ExecSession) {}

  /** The last lines the in-container program wrote to stderr, for diagnostics. */
  get stderr(): string {
    return this.stderrTail;
  }

  async start(): Promise<void> {
    this.exec.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
    this.exec.stderr.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    void this.exec.exited.then(() => this.finish());
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error("The in-container MCP server has exited."));
    return new Promise((resolve, reject) => {
      this.exec.stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    this.exec.close();
    this.finish();
  }

  private receive(chunk: Buffer): void {
    try {
      this.readBuffer.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (error) {
        // A malformed line is reported and skipped; the session goes on.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.readBuffer.clear();
    this.onclose?.();
  }
}
