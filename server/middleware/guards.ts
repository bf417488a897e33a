import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../runtime/errors/app-error.js";

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

/** The Host header values accepted for a bind address and port (loopback names are interchangeable). */
export function allowedHostHeaders(host: string, port: number): Set<string> {
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const names = LOOPBACK_NAMES.includes(bracketed) ? LOOPBACK_NAMES : [bracketed];
  return new Set(names.map((name) => `${name}:${port}`));
}

/**
 * DNS-rebinding protection: the Host header must name the bound address, and browsers'
 * cross-origin requests are refused — the only Origin accepted is the control plane's own
 * (its dashboard), which a rebinding page cannot claim because its Host would not match.
 */
export function hostAndOriginGuard(allowed: () => Set<string>): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && !isOwnOrigin(origin, allowed())) {
      throw new AppError(
        "permission_denied",
        "Requests from other web origins are refused (only workcell's own dashboard may call it from a browser). Call it from a program or the CLI, without an Origin header.",
      );
    }
    const host = c.req.header("host") ?? "";
    if (!allowed().has(host.toLowerCase())) {
      throw new AppError(
        "permission_denied",
        `The Host header must be the address workcell is bound to (${[...allowed()].join(" or ")}); received "${host.slice(0, 100)}".`,
      );
    }
    await next();
  };
}

function isOwnOrigin(origin: string, allowed: Set<string>): boolean {
  const match = /^http:\/\/([^/]+)$/i.exec(origin);
  return match?.[1] !== undefined && allowed.has(match[1].toLowerCase());
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** True when `candidate` equals `token`, compared in constant time. */
export function tokensMatch(candidate: string, token: string): boolean {
  return timingSafeEqual(digest(candidate), digest(token));
}

/** Requires `Authorization: Bearer <token>`; the token is never echoed. */
export function bearerAuth(token: string): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match?.[1] === undefined || !tokensMatch(match[1], token)) {
      throw new AppError(
        "unauthorized",
        header === ""
          ? "Missing Authorization header. Send 'Authorization: Bearer <token>' with the token printed at start-up (also in <dataDir>/token)."
          : "Invalid bearer token. Use the token printed at start-up (also in <dataDir>/token) or WORKCELL_TOKEN.",
      );
    }
    await next();
  };
}
