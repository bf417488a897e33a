import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { ADMISSION_METHOD, ADMISSION_POSITION, ADMISSION_RELEASE } from "../../contract/wire.js";
import { abortPending } from "./abort-pending.js";

/** Waits for a host-wide slot for heavy work; resolves with the function that gives it back. */
export type AdmissionHandler = (request: {
  workerId: string;
  tool: string;
  signal: AbortSignal;
  onPosition: (position: number) => void;
}) => Promise<() => void>;

/**
 * Takes the in-container server's admission requests, releases and their cancellations off
 * the wire and serves them from the host queue; it holds the slots granted (by ticket)
 * until they are released or the session ends.
 */
export class AdmissionRelay {
  private readonly tickets = new Map<string, () => void>();
  private readonly waiting = new Map<RequestId, AbortController>();

  constructor(
    private readonly workerId: string,
    private readonly container: Transport,
    private readonly handler: AdmissionHandler | undefined,
    /** Whether the session has ended: a slot granted after that is given back at once. */
    private readonly isClosed: () => boolean,
  ) {}

  /** True when the message was an admission request, release or cancellation, and is handled here. */
  intercept(message: JSONRPCMessage): boolean {
    const msg = message as { id?: RequestId; method?: string; params?: Record<string, unknown> };
    if (msg.method === ADMISSION_RELEASE) {
      const ticket = String(msg.params?.ticket ?? "");
      this.tickets.get(ticket)?.();
      this.tickets.delete(ticket);
      return true;
    }
    if (msg.method === "notifications/cancelled") return abortPending(this.waiting, msg.params);
    if (msg.method !== ADMISSION_METHOD || msg.id === undefined) return false;
    const id = msg.id;
    const key = String(msg.params?.key ?? "");
    if (this.handler === undefined) {
      void this.container.send({ jsonrpc: "2.0", id, result: { ticket: "unmetered" } }).catch(() => undefined);
      return true;
    }
    const controller = new AbortController();
    this.waiting.set(id, controller);
    this.handler({
      workerId: this.workerId,
      tool: String(msg.params?.tool ?? ""),
      signal: controller.signal,
      onPosition: (position) =>
        void this.container
          .send({ jsonrpc: "2.0", method: ADMISSION_POSITION, params: { key, position } })
          .catch(() => undefined),
    }).then(
      (release) => {
        this.waiting.delete(id);
        if (this.isClosed()) return release();
        const ticket = crypto.randomUUID();
        this.tickets.set(ticket, release);
        void this.container.send({ jsonrpc: "2.0", id, result: { ticket } }).catch(() => undefined);
      },
      (error: unknown) => {
        this.waiting.delete(id);
        void this.container
          .send({
            jsonrpc: "2.0",
            id,
            error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
          })
          .catch(() => undefined);
      },
    );
    return true;
  }

  /** Stops waiting for every admission and gives back every slot held. */
  releaseAll(): void {
    for (const controller of this.waiting.values()) controller.abort();
    this.waiting.clear();
    for (const release of this.tickets.values()) release();
    this.tickets.clear();
  }
}
