import { describe, expect, it } from "vitest";
import { decideEgress } from "../../../../runtime/net/decide-egress.js";
import { normalizePolicy } from "../../../../runtime/permissions/policy.js";

const policy = (input: Parameters<typeof normalizePolicy>[0]) =>
  normalizePolicy(input, { dataDir: "/var/lib/workcell" });

describe("decideEgress with other notations of an address", () => {
  it("a deny on an address also covers its mapped, hex and short forms", () => {
    const audited = policy({ net: true, deny: { net: ["169.254.169.254", "127.0.0.1"] } });
    for (const host of [
      "::ffff:169.254.169.254",
      "[::ffff:a9fe:a9fe]",
      "0xa9.0xfe.0xa9.0xfe",
      "2852039166",
      "127.1",
      "0x7f.1",
      "[::ffff:7f00:1]",
    ]) {
      expect([host, decideEgress(audited, host, 80).allowed]).toEqual([host, false]);
    }
  });

  it("a grant on an address matches its other forms, and a grant written in a mapped form means the IPv4 address", () => {
    const granted = policy({ net: ["10.0.0.5:5432", "[::ffff:7f00:1]:8080"] });
    expect(granted.net).toEqual(["10.0.0.5:5432", "127.0.0.1:8080"]);
    expect(decideEgress(granted, "::ffff:10.0.0.5", 5432)).toEqual({ allowed: true });
    expect(decideEgress(granted, "127.0.0.1", 8080)).toEqual({ allowed: true });
    expect(decideEgress(granted, "::ffff:10.0.0.6", 5432).allowed).toBe(false);
  });
});
