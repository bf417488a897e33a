/**
 * IP literals in every notation a resolver or the kernel accepts, turned into one canonical
 * form, so a grant, a deny and a destination are compared as the addresses they name. Pure:
 * the control plane's egress decisions and the sandbox's answers use the same parser.
 */

/** An IP address in one canonical form: `family` and its bytes (4 or 16). */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: readonly number[];
}

const PART = /^(0x[0-9a-f]*|0[0-7]*|[1-9]\d*)$/i;

function parsePart(text: string): number | undefined {
  if (!PART.test(text)) return undefined;
  if (/^0x/i.test(text)) return text.length === 2 ? 0 : Number.parseInt(text.slice(2), 16);
  if (text.length > 1 && text.startsWith("0")) return Number.parseInt(text.slice(1), 8);
  return Number(text);
}

/**
 * Parses an IPv4 literal the way `inet_aton` (and so the resolver) does: one to four parts,
 * each decimal, `0x` hex or `0` octal, the last filling the remaining bytes ("127.1",
 * "0x7f.1", "2130706433"). A trailing dot is accepted. Pure.
 */
export function parseIpv4Literal(text: string): IpAddress | undefined {
  const parts = text.replace(/\.$/, "").split(".");
  if (parts.length < 1 || parts.length > 4) return undefined;
  const values = parts.map(parsePart);
  if (values.some((value) => value === undefined)) return undefined;
  const numbers = values as number[];
  const last = numbers[numbers.length - 1] as number;
  const leading = numbers.slice(0, -1);
  if (leading.some((value) => value > 255) || last >= 2 ** (8 * (4 - leading.length))) return undefined;
  const tail = [24, 16, 8, 0].slice(leading.length).map((shift) => Math.floor(last / 2 ** shift) % 256);
  return { family: 4, bytes: [...leading, ...tail] };
}

const DOTTED_QUAD = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/**
 * Whether `text` is an IPv6 address in RFC 4291 text form (no brackets, no zone id): eight
 * groups, or fewer around one `::`, the last two optionally a strict dotted quad. Accepts
 * exactly what `node:net`'s isIPv6 accepts there. Pure.
 */
export function isIpv6Text(text: string): boolean {
  const halves = text.split("::");
  if (halves.length > 2) return false;
  const groupsOf = (part: string) => (part === "" ? [] : part.split(":"));
  const head = groupsOf(halves[0] as string);
  const tail = halves.length === 2 ? groupsOf(halves[1] as string) : [];
  const groups = [...head, ...tail];
  let count = groups.length;
  // A dotted quad stands for the last two groups, so it must end the text.
  const endsText = halves.length === 1 || tail.length > 0;
  if (endsText && groups[groups.length - 1]?.includes(".")) {
    if (!DOTTED_QUAD.test(groups.pop() as string)) return false;
    count += 1;
  }
  if (!groups.every((group) => HEX_GROUP.test(group))) return false;
  return halves.length === 2 ? count <= 7 : count === 8;
}

/** Parses an IPv6 literal (brackets and a zone id allowed, an embedded dotted IPv4 too) to 16 bytes. Pure. */
export function parseIpv6Literal(text: string): IpAddress | undefined {
  const bare = text.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (!isIpv6Text(bare)) return undefined;
  let body = bare.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted) {
    const v4 = parseIpv4Literal(dotted[1] as string);
    if (v4 === undefined) return undefined;
    const [a, b, c, d] = v4.bytes as [number, number, number, number];
    body = `${body.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = body.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const restGroups = rest === undefined || rest === "" ? [] : rest.split(":");
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill("0"), ...restGroups].map((group) =>
    Number.parseInt(group, 16),
  );
  if (groups.length !== 8 || groups.some((group) => Number.isNaN(group))) return undefined;
  return { family: 6, bytes: groups.flatMap((group) => [group >> 8, group & 0xff]) };
}

/** Parses any IP literal form; undefined for a host name. Pure. */
export function parseIpLiteral(text: string): IpAddress | undefined {
  return parseIpv4Literal(text) ?? parseIpv6Literal(text);
}

const startsWith = (bytes: readonly number[], prefix: readonly number[]) =>
  prefix.every((value, index) => bytes[index] === value);
const allZero = (bytes: readonly number[]) => bytes.every((value) => value === 0);

/**
 * The IPv4 address an IPv6 address stands for, if it embeds one that a translator, tunnel or
 * the host's own stack would reach: IPv4-mapped `::ffff:0:0/96`, IPv4-translated
 * `::ffff:0:0:0/96`, IPv4-compatible `::/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16` and
 * Teredo `2001::/32` (its obfuscated client address). Pure.
 */
export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.family === 4) return undefined;
  const b = address.bytes;
  const last4 = b.slice(12, 16);
  if (allZero(b.slice(0, 10)) && b[10] === 0xff && b[11] === 0xff) return { family: 4, bytes: last4 };
  if (allZero(b.slice(0, 8)) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0)
    return { family: 4, bytes: last4 };
  if (allZero(b.slice(0, 12)) && !allZero(last4.slice(0, 3))) return { family: 4, bytes: last4 };
  if (startsWith(b, [0, 0x64, 0xff, 0x9b]) && allZero(b.slice(4, 12))) return { family: 4, bytes: last4 };
  if (startsWith(b, [0x20, 0x02])) return { family: 4, bytes: b.slice(2, 6) };
  if (startsWith(b, [0x20, 0x01, 0, 0])) return { family: 4, bytes: last4.map((value) => value ^ 0xff) };
  return undefined;
}

/**
 * The one text form of a host for decisions and grants: IP literals in any notation become
 * their canonical address (an IPv6 form embedding an IPv4 address by mapping, translation or
 * compatibility becomes that IPv4 address), names lose brackets, case and a trailing dot. Pure.
 */
export function canonicalHost(host: string): string {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  const address = parseIpLiteral(bare);
  if (address === undefined) return bare.replace(/\.+$/, "");
  return formatIp(toCanonicalAddress(address));
}

function toCanonicalAddress(address: IpAddress): IpAddress {
  if (address.family === 4) return address;
  const b = address.bytes;
  const mapped = allZero(b.slice(0, 10)) && b[10] === 0xff && b[11] === 0xff;
  const translated = allZero(b.slice(0, 8)) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0;
  const compatible = allZero(b.slice(0, 12)) && !allZero(b.slice(12, 15));
  return mapped || translated || compatible ? { family: 4, bytes: b.slice(12, 16) } : address;
}

/** Formats an address: dotted IPv4, or RFC 5952 compressed lower-case IPv6. Pure. */
export function formatIp(address: IpAddress): string {
  if (address.family === 4) return address.bytes.join(".");
  const groups = Array.from(
    { length: 8 },
    (_, index) => ((address.bytes[2 * index] as number) << 8) | (address.bytes[2 * index + 1] as number),
  );
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start += 1) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length += 1;
    if (length > bestLength) [bestStart, bestLength] = [start, length];
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}
