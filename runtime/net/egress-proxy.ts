import { lookup } from "node:dns/promises";
import { chmod, mkdir, rm } from "node:fs/promises";
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, isIP, type Socket } from "node:net";
import path from "node:path";

/** What the policy says about one destination. */
export type EgressDecision = { allowed: true; audited?: boolean } | { allowed: false; message: string };

/** Decides a destination; consulted on every request, so policy changes apply at once. */
export type EgressDecider = (host: string, port: number) => EgressDecision | Promise<EgressDecision>;

const CONNECT_TIMEOUT_MS = 15_000;

/** True for loopback, private, link-local and unspecified addresses. */
export function isInternalAddress(address: string): boolean {
  if (isIP(address) === 4) {
    const [a = 0, b = 0] = address.split(".").map(Number);
    return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
  }
  const lower = address.toLowerCase();
  return lower === "::1" || lower === "::" || lower.startsWith("fe80:") || lower.startsWith("fc") || lower.startsWith("fd") || lower.startsWith("::ffff:127.") || lower.startsWith("::ffff:10.") || lower.startsWith("::ffff:192.168.");
}

/**
 * Resolves where to connect. A grant naming an address literally is used as is; a host
 * name must not resolve to an internal address (so a granted name cannot be pointed at the
 * control plane or the host's private services).
 */
async function resolveTarget(host: string): Promise<{ address: string } | { error: string }> {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (isIP(bare) !== 0) return { address: bare };
  try {
    const { address } = await lookup(bare);
    if (isInternalAddress(address)) {
      return { error: `PermissionDenied: "${host}" resolves to the internal address ${address}; grant the address itself (e.g. "${address}:<port>") if that is intended` };
    }
    return { address };
  } catch {
    return { error: `"${host}" could not be resolved` };
  }
}

function splitHostPort(authority: string, defaultPort: number): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(authority);
  if (!match) return undefined;
  return { host: (match[1] as string).toLowerCase(), port: match[2] === undefined ? defaultPort : Number(match[2]) };
}

/**
 * The per-worker egress proxy: an HTTP proxy on a Unix socket (bind-mounted into the
 * container, which has no network interface of its own). CONNECT and plain HTTP go only to
 * granted host:port pairs; anything else gets 403 with a body naming the host and the
 * grant that would allow it.
 */
export class EgressProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly socketPath: string,
    private readonly decide: EgressDecider,
  ) {
    this.server = createServer((req, res) => void this.forwardHttp(req, res));
    this.server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => void this.tunnel(req, client, head));
    this.server.on("connection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
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

  private refuse(res: ServerResponse, message: string): void {
    res.writeHead(403, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    res.end(`${message}\n`);
  }

  private async tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on("error", () => undefined);
    const target = splitHostPort(req.url ?? "", 443);
    const reject = (status: string, message: string) => {
      client.end(`HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(message) + 1}\r\nconnection: close\r\n\r\n${message}\n`);
    };
    if (target === undefined) return reject("400 Bad Request", `CONNECT needs host:port, received "${req.url}"`);
    const decision = await this.decide(target.host, target.port);
    if (!decision.allowed) return reject("403 Forbidden", decision.message);
    const resolved = await resolveTarget(target.host);
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
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      return this.refuse(res, `The proxy takes absolute http:// URLs (set HTTP_PROXY); received "${req.url}"`);
    }
    if (url.protocol !== "http:") return this.refuse(res, `Only http:// is proxied directly; use CONNECT (HTTPS_PROXY) for ${url.protocol}`);
    const port = url.port === "" ? 80 : Number(url.port);
    const host = url.hostname.toLowerCase();
    const decision = await this.decide(host, port);
    if (!decision.allowed) return this.refuse(res, decision.message);
    const resolved = await resolveTarget(host);
    if ("error" in resolved) return this.refuse(res, resolved.error);
    const headers = { ...req.headers };
    delete headers["proxy-connection"];
    delete headers["proxy-authorization"];
    const upstream = httpRequest(
      { host: resolved.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, timeout: CONNECT_TIMEOUT_MS },
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
