import { describe, expect, it } from "vitest";
import { canonicalHost, parseIpv4Literal, parseIpv6Literal } from "../../../../runtime/net/ip-address.js";

describe("canonicalHost", () => {
  it("turns every IPv4 notation the resolver accepts into the dotted address", () => {
    for (const text of ["127.0.0.1", "127.1", "0x7f.1", "0x7f.0.0.1", "0177.0.0.1", "2130706433", "0x7f000001", "127.0.1", "127.0.0.1."]) expect([text, canonicalHost(text)]).toEqual([text, "127.0.0.1"]);
  });

  it("turns IPv6 forms that embed an IPv4 address into that address", () => {
    for (const text of ["::ffff:169.254.169.254", "[::ffff:a9fe:a9fe]", "::FFFF:A9FE:A9FE", "0:0:0:0:0:ffff:169.254.169.254", "::ffff:0:169.254.169.254", "::169.254.169.254"]) {
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
    for (const text of ["1::2::3", "::ffff:999.1.1.1", "gggg::1", "example.com"]) expect([text, parseIpv6Literal(text)]).toEqual([text, undefined]);
  });
});
