import { describe, expect, it } from "vitest";
import { isInternalAddress } from "../../../../runtime/net/internal-ranges.js";

describe("isInternalAddress", () => {
  it.each([
    ["loopback", ["127.0.0.1", "127.255.255.254", "::1"]],
    ["unspecified and this-network", ["0.0.0.0", "0.1.2.3", "::"]],
    ["private", ["10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1"]],
    ["link-local and cloud metadata", ["169.254.169.254", "fe80::1", "fe80::1%eth0", "febf::1"]],
    ["carrier-grade NAT", ["100.64.0.1", "100.127.255.255"]],
    ["unique local", ["fc00::1", "fd12:3456::1"]],
    ["multicast", ["224.0.0.1", "239.255.255.250", "ff02::1", "ff05::2"]],
    ["broadcast and reserved", ["255.255.255.255", "240.0.0.1"]],
    ["benchmarking", ["198.18.0.1", "198.19.255.255", "2001:2::1"]],
    ["documentation", ["192.0.2.1", "198.51.100.7", "203.0.113.9", "2001:db8::1", "3fff::1"]],
    ["IETF assignments and relays", ["192.0.0.8", "192.88.99.1"]],
    [
      "IPv4-mapped IPv6",
      [
        "::ffff:169.254.169.254",
        "::ffff:a9fe:a9fe",
        "::ffff:10.1.2.3",
        "::ffff:172.16.0.1",
        "::ffff:127.0.0.1",
        "::ffff:7f00:1",
        "[::ffff:127.0.0.1]",
        "0:0:0:0:0:ffff:c0a8:0101",
      ],
    ],
    ["IPv4-translated and -compatible IPv6", ["::ffff:0:10.0.0.1", "::10.0.0.1", "::127.0.0.1", "::a9fe:a9fe"]],
    ["NAT64", ["64:ff9b::10.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1", "64:ff9b:1::1"]],
    ["6to4 embedding an internal address", ["2002:a9fe:a9fe::1", "2002:7f00:1::", "2002:0a00:0001::1"]],
    ["Teredo", ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::1"]],
    [
      "short, hex, octal and integer IPv4 forms",
      [
        "127.1",
        "0x7f.1",
        "0x7f000001",
        "2130706433",
        "017700000001",
        "0177.0.0.1",
        "10.1",
        "169.254.43518",
        "127.0.0.1.",
      ],
    ],
    ["names (never checked as addresses)", ["localhost", "example.com", ""]],
  ])("%s are internal", (_, addresses) => {
    for (const address of addresses) expect([address, isInternalAddress(address)]).toEqual([address, true]);
  });

  it("public unicast addresses in their usual and embedded forms are not internal", () => {
    for (const address of [
      "93.184.216.34",
      "8.8.8.8",
      "172.32.0.1",
      "100.128.0.1",
      "198.20.0.1",
      "223.255.255.255",
      "2606:4700::1",
      "2a00:1450::1",
      "::ffff:8.8.8.8",
      "64:ff9b::8.8.8.8",
      "2002:0808:0808::1",
    ]) {
      expect([address, isInternalAddress(address)]).toEqual([address, false]);
    }
  });
});
