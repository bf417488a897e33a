import { embeddedIpv4, parseIpLiteral, type IpAddress } from "../../contract/ip-address.js";

type Range = readonly [prefix: readonly number[], bits: number];

/** IPv4 ranges that are not the public internet: this host, private nets, the cloud metadata service, and the special-purpose blocks. */
const INTERNAL_V4: readonly Range[] = [
  [[0], 8], // "this network", including 0.0.0.0
  [[10], 8], // private
  [[100, 64], 10], // carrier-grade NAT
  [[127], 8], // loopback
  [[169, 254], 16], // link-local, cloud metadata
  [[172, 16], 12], // private
  [[192, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2], 24], // documentation
  [[192, 88, 99], 24], // 6to4 relay anycast
  [[192, 168], 16], // private
  [[198, 18], 15], // benchmarking
  [[198, 51, 100], 24], // documentation
  [[203, 0, 113], 24], // documentation
  [[224], 4], // multicast
  [[240], 4], // reserved, including the broadcast address 255.255.255.255
];

/** IPv6 ranges that are not the public internet (forms embedding an IPv4 address are judged by that address). */
const INTERNAL_V6: readonly Range[] = [
  [[0], 8], // reserved: unspecified, loopback, and unmapped IPv4-compatible forms
  [[0, 0x64, 0xff, 0x9b, 0, 1], 48], // local-use NAT64
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64], // discard-only
  [[0x20, 0x01, 0x00], 23], // IETF protocol assignments, including Teredo and benchmarking
  [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
  [[0x3f, 0xff], 20], // documentation
  [[0x5f, 0x00], 16], // segment routing
  [[0xfc], 7], // unique local
  [[0xfe, 0x80], 10], // link-local
  [[0xfe, 0xc0], 10], // site-local (deprecated)
  [[0xff], 8], // multicast
];

function inRange(bytes: readonly number[], [prefix, bits]: Range): boolean {
  for (let bit = 0; bit < bits; bit += 1) {
    const index = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((bytes[index] ?? 0) & mask) !== ((prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

function isInternalIp(address: IpAddress): boolean {
  if (address.family === 4) return INTERNAL_V4.some((range) => inRange(address.bytes, range));
  const embedded = embeddedIpv4(address);
  // A 6to4 or Teredo address embeds the relay/client address; either way an internal one is internal.
  if (embedded !== undefined && isInternalIp(embedded)) return true;
  const mapsWhole =
    embedded !== undefined && !(address.bytes[0] === 0x20 && (address.bytes[1] === 0x02 || address.bytes[1] === 0x01));
  if (mapsWhole) return false;
  return INTERNAL_V6.some((range) => inRange(address.bytes, range));
}

/**
 * True for any address that is not a public unicast destination: loopback, private,
 * link-local (cloud metadata), carrier-grade NAT, unique-local, multicast, broadcast,
 * unspecified, reserved, benchmarking and documentation ranges — in every notation
 * (IPv4-mapped, -translated and -compatible IPv6, NAT64, 6to4, Teredo, and the short, hex
 * and octal IPv4 forms). Something that is not an IP literal at all counts as internal, so
 * a caller can never pass an unchecked name through. Pure.
 */
export function isInternalAddress(address: string): boolean {
  const parsed = parseIpLiteral(address.trim());
  return parsed === undefined ? true : isInternalIp(parsed);
}
