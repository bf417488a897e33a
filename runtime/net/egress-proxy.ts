import { lookup } from "node:dns/promises";
import { chmod, mkdir, rm } from "node:fs/promises";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { connect, type Socket } from "node:net";
import path from "node:path";
import { ConnectionSlots } from "./connection-slots.js";
import { isInternalAddress } from "./internal-ranges.js";
import { canonicalHost, parseIpLiteral } from "../../contract/ip-address.js";

/** What the policy says about one destination. */
export type EgressDecision = { allowed: true; audited?: boolean } | { allowed: false; message: string };

/** Decides a destination; consulted on every request, so policy changes apply at once. */
export type EgressDecider = (host: string, port: number) => EgressDecision | Promise<EgressDecision>;

const CONNECT_TIMEOUT_MS = 15_000;
/** Open proxy connections one worker may hold at once (each tunnel also holds one upstream socket). */
export const DEFAULT_MAX_CONNECTIONS_PER_WORKER = 256;
/** Open proxy connections all workers together may hold at once. */
export const DEFAULT_MAX_CONNECTIONS_TOTAL = 4_096;
/** How long a refused connection may stay open waiting to send the request it is refused for. */
const REFUSED_IDLE_MS = 5_000;

export { isInternalAddress } from "./internal-ranges.js";

/** Resolves a name to every address it has (the proxy checks them all). */
export type ResolveAll = (name: string) => Promise<readonly string[]>;

/** Limits and seams of one proxy. */
export interface EgressProxyOptions {
  /** Concurrent connections this proxy accepts; more are answered 429. */
  readonly maxConnections?: number;
  /** The budget shared by all proxies of the host; when spent, connections are answered 503. */
  readonly hostSlots?: ConnectionSlots;
  readonly resolveAll?: ResolveAll;
}

const resolveWithSystem: ResolveAll = async (name) =>
  (await lookup(name, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Resolves where to connect. A literal address (in any notation, already canonical here)
 * is used as is: the decision granted exactly it. A host name must not resolve to any
 * internal address, so a granted name cannot be pointed at the control plane, the host's
 * private services or the cloud metadata service; the checked address is the one connected
 * to, so a second answer cannot differ.
 */
async function resolveTarget(host: string, resolveAll: ResolveAll): Promise<{ address: string } | { error: string }> {
  if (parseIpLiteral(host) !== undefined) return { address: host };
  let addresses: readonly string[];
  try {
    addresses = (await resolveAll(host)).map(canonicalHost);
  } catch {
    return { error: `"${host}" could not be resolved` };
  }
  const internal = addresses.find(isInternalAddress);
  if (internal !== undefined) {
    return {
      error: `PermissionDenied: "${host}" resolves to the internal address ${internal}; grant the address itself (e.g. "${internal.includes(":") ? `[${internal}]` : internal}:<port>") if that is intended`,
    };
  }
  const [address] = addresses;
  return address === undefined ? { error: `"${host}" could not be resolved` } : { address };
}

function splitHostPort(authority: string, defaultPort: number): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(authority);
  if (!match) return undefined;
  return { host: canonicalHost(match[1] as string), port: match[2] === undefined ? defaultPort : Number(match[2]) };
}

/**
 * The per-worker egress proxy: an HTTP proxy on a Unix socket (bind-mounted into the
 * container, which has no network interface of its own). CONNECT and plain HTTP go only to
 * granted host:port pairs; anything else gets 403 with a body naming the host and the
 * grant that would allow it. Every destination is decided in its canonical form (see
 * `canonicalHost`). At most `maxConnections` connections are open at once, and the host's
 * shared budget caps all proxies together; excess connections get 429 or 503.
 */
export class EgressProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly refusals = new WeakMap<Socket, { status: string; message: string }>();
  private admitted = 0;
  private readonly maxConnections: number;
  private readonly hostSlots: ConnectionSlots;
  private readonly resolveAll: ResolveAll;

  constructor(
    readonly socketPath: string,
    private readonly decide: EgressDecider,
    options: EgressProxyOptions = {},
  ) {
    this.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS_PER_WORKER;
    this.hostSlots = options.hostSlots ?? new ConnectionSlots(DEFAULT_MAX_CONNECTIONS_TOTAL);
    this.resolveAll = options.resolveAll ?? resolveWithSystem;
    this.server = createServer((req, res) => void this.forwardHttp(req, res));
    // A hard backstop against connections that never send a request: beyond it Node closes them at once.
    this.server.maxConnections = this.maxConnections * 2;
    this.server.on(
      "connect",
      (req: IncomingMessage, client: Socket, head: Buffer) => void this.tunnel(req, client, head),
    );
    this.server.on("connection", (socket: Socket) => this.admit(socket));
  }

  /** Counts a new connection against the worker's and the host's budgets, or marks it to be refused. */
  private admit(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    if (this.admitted >= this.maxConnections) {
      this.refusals.set(socket, {
        status: "429 Too Many Requests",
        message: `The worker already has ${this.admitted} open proxy connections (the limit is ${this.maxConnections}); close some before opening more.`,
      });
    } else if (!this.hostSlots.tryTake()) {
      this.refusals.set(socket, {
        status: "503 Service Unavailable",
        message: `The host's egress proxies hold ${this.hostSlots.limit} open connections (the limit); try again when some have closed.`,
      });
    } else {
      this.admitted += 1;
      socket.on("close", () => {
        this.admitted -= 1;
        this.hostSlots.release();
      });
      return;
    }
    socket.setTimeout(REFUSED_IDLE_MS, () => socket.destroy());
  }

  /** Listens on the socket (replacing a stale one); the socket is usable by the sandbox user. */
  async start(): Promise<void> {
    await mkdir(path.dirname(this.socketPath), { recursive: true });
    await rm(this.socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.socketPath, () => resolve());
    });
    await chmod(this.socketPath, 0o666);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(this.socketPath, { force: true });
  }

  private refuse(res: ServerResponse, message: string, status = 403): void {
    res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    res.end(`${message}\n`);
  }

  private async tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on("error", () => undefined);
    const target = splitHostPort(req.url ?? "", 443);
    const reject = (status: string, message: string) => {
      client.end(
        `HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(message) + 1}\r\nconnection: close\r\n\r\n${message}\n`,
      );
    };
    const refusal = this.refusals.get(client);
    if (refusal !== undefined) return reject(refusal.status, refusal.message);
    if (target === undefined) return reject("400 Bad Request", `CONNECT needs host:port, received "${req.url}"`);
    const decision = await this.decide(target.host, target.port);
    if (!decision.allowed) return reject("403 Forbidden", decision.message);
    const resolved = await resolveTarget(target.host, this.resolveAll);
    if ("error" in resolved) return reject("403 Forbidden", resolved.error);
    const upstream = connect({ host: resolved.address, port: target.port, timeout: CONNECT_TIMEOUT_MS });
    upstream.once("connect", () => {
      upstream.setTimeout(0);
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const fail = (message: string) => {
      if (!client.destroyed) reject("502 Bad Gateway", message);
      upstream.destroy();
    };
    upstream.once("timeout", () => fail(`connecting to ${target.host}:${target.port} timed out`));
    upstream.once("error", (error) => fail(`connecting to ${target.host}:${target.port} failed: ${error.message}`));
    client.once("close", () => upstream.destroy());
  }

  private async forwardHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal = this.refusals.get(req.socket);
    if (refusal !== undefined) return this.refuse(res, refusal.message, Number(refusal.status.slice(0, 3)));
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      return this.refuse(res, `The proxy takes absolute http:// URLs (set HTTP_PROXY); received "${req.url}"`);
    }
    if (url.protocol !== "http:")
      return this.refuse(res, `Only http:// is proxied directly; use CONNECT (HTTPS_PROXY) for ${url.protocol}`);
    const port = url.port === "" ? 80 : Number(url.port);
    const host = canonicalHost(url.hostname);
    const decision = await this.decide(host, port);
    if (!decision.allowed) return this.refuse(res, decision.message);
    const resolved = await resolveTarget(host, this.resolveAll);
    if ("error" in resolved) return this.refuse(res, resolved.error);
    const headers = { ...req.headers };
    delete headers["proxy-connection"];
    delete headers["proxy-authorization"];
    const upstream = httpRequest(
      {
        host: resolved.address,
        port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers,
        timeout: CONNECT_TIMEOUT_MS,
        agent: false,
      },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(res);
      },
    );
    upstream.on("timeout", () => upstream.destroy(new Error("timed out")));
    upstream.on("error", (error) => {
      if (!res.headersSent) {
        res.writeHead(502, { "content-type": "text/plain; charset=utf-8" });
        res.end(`${host}:${port} could not be reached: ${error.message}\n`);
      } else res.destroy();
    });
    req.pipe(upstream);
  }
}
