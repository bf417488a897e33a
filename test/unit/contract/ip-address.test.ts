import { isIPv6 } from "node:net";
import { describe, expect, it } from "vitest";
import { canonicalHost, isIpv6Text, parseIpv4Literal, parseIpv6Literal } from "../../../contract/ip-address.js";

describe("canonicalHost", () => {
  it("turns every IPv4 notation the resolver accepts into the dotted address", () => {
    for (const text of [
      "127.0.0.1",
      "127.1",
      "0x7f.1",
      "0x7f.0.0.1",
      "0177.0.0.1",
      "2130706433",
      "0x7f000001",
      "127.0.1",
      "127.0.0.1.",
    ])
      expect([text, canonicalHost(text)]).toEqual([text, "127.0.0.1"]);
  });

  it("turns IPv6 forms that embed an IPv4 address into that address", () => {
    for (const text of [
      "::ffff:169.254.169.254",
      "[::ffff:a9fe:a9fe]",
      "::FFFF:A9FE:A9FE",
      "0:0:0:0:0:ffff:169.254.169.254",
      "::ffff:0:169.254.169.254",
      "::169.254.169.254",
    ]) {
      expect([text, canonicalHost(text)]).toEqual([text, "169.254.169.254"]);
    }
  });

  it("compresses other IPv6 addresses and drops zone ids", () => {
    expect(canonicalHost("2001:0db8:0000:0000:0000:0000:0000:0001")).toBe("2001:db8::1");
    expect(canonicalHost("[FE80::1%eth0]")).toBe("fe80::1");
    expect(canonicalHost("::1")).toBe("::1");
    expect(canonicalHost("::")).toBe("::");
    expect(canonicalHost("64:ff9b::a9fe:a9fe")).toBe("64:ff9b::a9fe:a9fe");
  });

  it("lower-cases names and drops a trailing dot", () => {
    expect(canonicalHost("Example.COM.")).toBe("example.com");
    expect(canonicalHost("localhost.")).toBe("localhost");
  });
});

describe("parseIpv4Literal and parseIpv6Literal", () => {
  it("refuse what the resolver would not take as an address", () => {
    for (const text of ["256.0.0.1", "1.2.3.4.5", "08", "example.com", "1.2.3.0x100", "4294967296", ""]) {
      expect([text, parseIpv4Literal(text)]).toEqual([text, undefined]);
    }
    for (const text of ["1::2::3", "::ffff:999.1.1.1", "gggg::1", "example.com"])
      expect([text, parseIpv6Literal(text)]).toEqual([text, undefined]);
  });
});

/** Text that is, or is nearly, an IPv6 address: groups of hex digits, one or two "::", maybe a dotted quad at the end. */
function candidates(count: number): string[] {
  // mulberry32: a fixed seed, so every run checks the same texts.
  let seed = 7;
  const next = (below: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * below);
  };
  const hex = "0123456789abcdefAB";
  const group = () => {
    const length = next(10) === 0 ? 5 * next(2) : 1 + next(4);
    return Array.from({ length }, () => (next(50) === 0 ? "g" : hex[next(hex.length)])).join("");
  };
  const octet = () => String([0, 1, 9, 10, 99, 100, 199, 249, 255, 256, 300][next(11)]) + (next(8) === 0 ? "0" : "");
  const texts: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const compressed = next(2) === 0;
    const groups = Array.from({ length: compressed ? next(8) : 6 + next(4) }, group);
    if (compressed) groups.splice(next(groups.length + 1), 0, "");
    if (next(9) === 0) groups.splice(next(groups.length + 1), 0, "");
    let text = groups.join(":");
    if (next(4) === 0)
      text += `${next(2) === 0 ? ":" : ""}${[octet(), octet(), octet(), octet()].slice(0, 3 + next(2)).join(".")}`;
    texts.push(text);
  }
  return texts;
}

describe("isIpv6Text", () => {
  it("accepts exactly what node:net's isIPv6 accepts, so the contract needs no node: import", () => {
    const edges = [
      "::",
      "::1",
      "1::",
      "1:2:3:4:5:6:7:8",
      "1:2:3:4:5:6:7::",
      "1:2:3:4:5:6:7::8",
      "::ffff:1.2.3.4",
      "1::1.2.3.4",
      "1.2.3.4::",
      "1:2:3:4:5:6:1.2.3.4",
      "1:2:3:4:5:6:7:1.2.3.4",
      "::01.2.3.4",
      ":1::",
      ":::",
      "1:::2",
      "::1::",
      "12345::",
      "",
    ];
    const texts = [...edges, ...candidates(20_000)];
    const disagreements = texts.filter((text) => isIpv6Text(text) !== isIPv6(text));
    expect(disagreements).toEqual([]);
    expect(texts.filter((text) => isIPv6(text)).length).toBeGreaterThan(2_000);
  });
});
