import { describe, expect, it } from "vitest";
import { judgeNetTarget, parseNetTarget } from "../../../contract/host-pattern.js";
import { defaultPolicy, defaultPolicyFile, type Policy } from "../../../contract/policy.js";
import { decideEgress, shouldPromptEgress } from "../../../runtime/net/decide-egress.js";
import { queryPermission } from "../../../tools/permissions/decide.js";

describe("judgeNetTarget", () => {
  const rules = { net: ["*.example.com:443", "10.0.0.5"], deny: { net: ["evil.example.com", "10.0.0.5:22"] } };

  it("lets a deny win over a grant, then grants what a pattern covers", () => {
    expect(judgeNetTarget(rules, "api.example.com", 443)).toBe("granted");
    expect(judgeNetTarget(rules, "evil.example.com", 443)).toBe("denied");
    expect(judgeNetTarget(rules, "api.example.com", 80)).toBe("not-granted");
    expect(judgeNetTarget(rules, "example.com", 443)).toBe("not-granted");
    expect(judgeNetTarget(rules, "10.0.0.5", 5432)).toBe("granted");
    expect(judgeNetTarget(rules, "10.0.0.5", 22)).toBe("denied");
  });

  it("reads a destination without a port as every port: only a portless grant covers it, and a deny of any port denies it", () => {
    expect(judgeNetTarget(rules, "api.example.com", null)).toBe("not-granted");
    expect(judgeNetTarget(rules, "10.0.0.5", null)).toBe("denied");
    expect(judgeNetTarget({ net: ["example.org"], deny: { net: [] } }, "example.org", null)).toBe("granted");
  });

  it("grants everything not denied when net is true, and nothing when it is false", () => {
    expect(judgeNetTarget({ net: true, deny: { net: [] } }, "anything.test", 1)).toBe("granted");
    expect(judgeNetTarget({ net: false, deny: { net: [] } }, "anything.test", 1)).toBe("not-granted");
  });
});

describe("parseNetTarget", () => {
  it("takes a host, a port and IPv6 in brackets, and canonicalises the address", () => {
    expect(parseNetTarget("API.Example.com.:443")).toEqual({ host: "api.example.com", port: 443 });
    expect(parseNetTarget("127.1")).toEqual({ host: "127.0.0.1", port: null });
    expect(parseNetTarget("[::ffff:10.0.0.5]:5432")).toEqual({ host: "10.0.0.5", port: 5432 });
  });

  it("refuses wildcards and what is no host, saying what is wrong", () => {
    expect(parseNetTarget("*.example.com")).toMatch(/not a wildcard/);
    expect(parseNetTarget("::1")).toMatch(/brackets/);
    expect(parseNetTarget("https://example.com")).toMatch(/is a URL/);
  });
});

/** A policy as the control plane stores it and as the tools read it from the policy file. */
function bothSides(net: Policy["net"], denyNet: string[], prompt = false) {
  const policy: Policy = { ...defaultPolicy(), net, prompt, deny: { ...defaultPolicy().deny, net: denyNet } };
  return { policy, file: { ...defaultPolicyFile(), ...policy } };
}

const target = (host: string, port: number) => `${host.includes(":") ? `[${host}]` : host}:${port}`;

// Destinations on which the sandbox's permissions_query and the egress proxy used to answer
// differently: the sandbox compared text, the proxy compares the addresses the text names.
const CASES: {
  why: string;
  net: Policy["net"];
  deny: string[];
  host: string;
  port: number;
  expected: "granted" | "denied";
}[] = [
  {
    why: "a short IPv4 form of a granted address",
    net: ["127.0.0.1:5432"],
    deny: [],
    host: "127.1",
    port: 5432,
    expected: "granted",
  },
  {
    why: "a single-number IPv4 form",
    net: ["127.0.0.1:5432"],
    deny: [],
    host: "2130706433",
    port: 5432,
    expected: "granted",
  },
  {
    why: "an uncompressed IPv6 form of a granted address",
    net: ["[::1]:8080"],
    deny: [],
    host: "0:0:0:0:0:0:0:1",
    port: 8080,
    expected: "granted",
  },
  {
    why: "an IPv4-mapped IPv6 form of a granted address",
    net: ["10.0.0.5:5432"],
    deny: [],
    host: "::ffff:10.0.0.5",
    port: 5432,
    expected: "granted",
  },
  {
    why: "an IPv4-mapped IPv6 form of a denied address",
    net: true,
    deny: ["10.0.0.5"],
    host: "::ffff:10.0.0.5",
    port: 5432,
    expected: "denied",
  },
  {
    why: "the hex IPv4-mapped form of the metadata address",
    net: true,
    deny: ["169.254.169.254"],
    host: "::ffff:a9fe:a9fe",
    port: 80,
    expected: "denied",
  },
  {
    why: "a denied name in capitals with a trailing dot",
    net: true,
    deny: ["evil.example.com"],
    host: "EVIL.example.com.",
    port: 443,
    expected: "denied",
  },
  {
    why: "a wildcard grant and a name with a trailing dot",
    net: ["*.example.com"],
    deny: [],
    host: "api.example.com.",
    port: 443,
    expected: "granted",
  },
  {
    why: "a wildcard grant does not cover its own apex",
    net: ["*.example.com"],
    deny: [],
    host: "example.com",
    port: 443,
    expected: "denied",
  },
  {
    why: "a port-bound grant on another port",
    net: ["*.example.com:443"],
    deny: [],
    host: "api.example.com",
    port: 80,
    expected: "denied",
  },
];

describe("the sandbox's permissions_query and the control plane's egress proxy", () => {
  it.each(CASES)("give the same answer: $why", ({ net, deny, host, port, expected }) => {
    const { policy, file } = bothSides(net, deny);
    const proxy = decideEgress(policy, host, port).allowed ? "granted" : "denied";
    const sandbox = queryPermission(file, "net", target(host, port), "/workspace");
    expect({ proxy, sandbox }).toEqual({ proxy: expected, sandbox: expected });
  });

  it.each(CASES)("agree on what a prompting policy puts to a reviewer: $why", ({ net, deny, host, port, expected }) => {
    const { policy, file } = bothSides(net, deny, true);
    const proxy = decideEgress(policy, host, port).allowed
      ? "granted"
      : shouldPromptEgress(policy, host, port)
        ? "prompt"
        : "denied";
    const sandbox = queryPermission(file, "net", target(host, port), "/workspace");
    expect(sandbox).toBe(proxy);
    expect(sandbox === "granted").toBe(expected === "granted");
  });
});
