import { canonicalHost, parseIpv6Literal } from "./ip-address.js";

/**
 * The one rule for network grants: how "host", "host:port", "*.example.com" and "[::1]:8080"
 * are parsed, and which destinations they cover. The control plane's egress proxy decides
 * connections with it and the sandbox's permissions_query answers with it, so the two agree.
 */

/** A parsed network grant: a host (or `*.suffix` wildcard) and an optional port. */
export interface HostPattern {
  readonly host: string;
  readonly port: number | null;
  readonly wildcard: boolean;
}

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** True for a dotted IPv4 literal. */
export function isIpv4(value: string): boolean {
  return IPV4.test(value);
}

/**
 * Parses "host", "host:port", "*.example.com[:port]", "10.1.2.3:5432" or "[::1]:8080".
 * Returns an error message naming what is wrong instead of throwing. Pure.
 */
export function parseHostPattern(raw: string): HostPattern | string {
  const value = raw.trim().toLowerCase();
  if (value === "") return "expected a host such as example.com, example.com:443, *.example.com or 10.1.2.3:5432";
  if (/^[a-z]+:\/\//.test(value))
    return `"${raw}" is a URL; give the host (and port) only, e.g. "${value.replace(/^[a-z]+:\/\//, "").split("/")[0]}"`;
  let host = value;
  let port: number | null = null;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(value);
  if (bracketed) {
    host = bracketed[1] as string;
    port = bracketed[2] === undefined ? null : Number(bracketed[2]);
  } else {
    const colon = value.lastIndexOf(":");
    if (colon !== -1) {
      if (value.indexOf(":") !== colon) return `"${raw}": write IPv6 addresses in brackets, e.g. "[::1]:8080"`;
      host = value.slice(0, colon);
      const portText = value.slice(colon + 1);
      if (!/^\d{1,5}$/.test(portText)) return `"${raw}": the port must be a number from 1 to 65535`;
      port = Number(portText);
    }
  }
  if (port !== null && (port < 1 || port > 65_535)) return `"${raw}": the port must be a number from 1 to 65535`;
  const wildcard = host.startsWith("*.");
  const bare = wildcard ? host.slice(2) : host;
  if (bracketed)
    return parseIpv6Literal(host) === undefined
      ? `"${raw}" is not a valid IPv6 address`
      : { host: canonicalHost(host), port, wildcard: false };
  if (host.includes("*") && !wildcard) return `"${raw}": a wildcard may only be a leading "*." as in "*.example.com"`;
  if (!isIpv4(bare) && !HOSTNAME.test(bare)) return `"${raw}" is not a valid host name or IPv4 address`;
  if (wildcard && isIpv4(bare)) return `"${raw}": wildcards apply to host names, not addresses`;
  // "127.1", "0x7f.0.0.1" and "2130706433" are 127.0.0.1 to the resolver; grant and match them as that.
  return { host: wildcard ? bare : canonicalHost(bare), port, wildcard };
}

/** Whether a grant pattern covers a concrete host and port. Pure. */
export function hostMatches(pattern: HostPattern, host: string, port: number): boolean {
  if (pattern.port !== null && pattern.port !== port) return false;
  return hostNameMatches(pattern, host);
}

/** Whether a pattern's host part (any port) covers `host`. */
function hostNameMatches(pattern: HostPattern, host: string): boolean {
  const target = canonicalHost(host);
  if (pattern.wildcard) return target.endsWith(`.${pattern.host}`);
  return target === pattern.host;
}

/**
 * Parses a destination someone asks about ("host", "host:port", "[::1]:8080"): like a grant,
 * but one host, with a trailing dot allowed as resolvers allow it. Returns an error message
 * instead of throwing. Pure.
 */
export function parseNetTarget(raw: string): { host: string; port: number | null } | string {
  const parsed = parseHostPattern(raw.trim().replace(/\.+(?=(?::\d+)?$)/, ""));
  if (typeof parsed === "string") return parsed;
  if (parsed.wildcard) return `"${raw}": expected one host, not a wildcard`;
  return { host: parsed.host, port: parsed.port };
}

/** A policy's network grants and denies, as normalised policies hold them. */
export interface NetRules {
  readonly net: boolean | readonly string[];
  readonly deny: { readonly net: readonly string[] };
}

/** How a policy's network rules judge a destination: a deny covers it, a grant covers it, or neither. */
export type NetJudgement = "denied" | "granted" | "not-granted";

function patternsOf(list: readonly string[]): HostPattern[] {
  return list.map(parseHostPattern).filter((pattern): pattern is HostPattern => typeof pattern !== "string");
}

/**
 * Judges `host` on `port` under a policy's network rules: deny wins, then `net: true` or a
 * covering grant. A null port asks about every port: a grant bound to one port does not
 * cover it, and a deny of any port of the host does. Entries that do not parse cover
 * nothing (normalised policies hold none). Pure.
 */
export function judgeNetTarget(rules: NetRules, host: string, port: number | null): NetJudgement {
  const covers = (pattern: HostPattern) =>
    port === null ? pattern.port === null && hostNameMatches(pattern, host) : hostMatches(pattern, host, port);
  const denies = (pattern: HostPattern) =>
    port === null ? hostNameMatches(pattern, host) : hostMatches(pattern, host, port);
  if (patternsOf(rules.deny.net).some(denies)) return "denied";
  if (rules.net === true || (Array.isArray(rules.net) && patternsOf(rules.net).some(covers))) return "granted";
  return "not-granted";
}

/** Canonical text of a pattern ("*.example.com:443"). */
export function formatHostPattern(pattern: HostPattern): string {
  const host = pattern.host.includes(":") ? `[${pattern.host}]` : `${pattern.wildcard ? "*." : ""}${pattern.host}`;
  return pattern.port === null ? host : `${host}:${pattern.port}`;
}
