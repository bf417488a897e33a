import { describe, expect, it } from "vitest";
import { decideEgress } from "../../../../runtime/net/decide-egress.js";
import { isInternalAddress } from "../../../../runtime/net/egress-proxy.js";
import { admitEnv } from "../../../../runtime/permissions/env-grant.js";
import { formatHostPattern, hostMatches, parseHostPattern } from "../../../../contract/host-pattern.js";
import {
  defaultPolicy,
  denyOverlays,
  mountsFor,
  normalizePolicy,
  PolicyError,
  type Policy,
} from "../../../../runtime/permissions/policy.js";
import { suggestPolicy } from "../../../../runtime/permissions/suggest.js";

const dataDir = "/var/lib/workcell";
const normalize = (input: Parameters<typeof normalizePolicy>[0]) => normalizePolicy(input, { dataDir });
const fieldOf = (input: Parameters<typeof normalizePolicy>[0]) => {
  try {
    normalize(input);
    return undefined;
  } catch (error) {
    return error instanceof PolicyError ? error.field : String(error);
  }
};

describe("host patterns", () => {
  it.each([
    ["example.com", { host: "example.com", port: null, wildcard: false }],
    ["Example.COM:443", { host: "example.com", port: 443, wildcard: false }],
    ["*.example.com", { host: "example.com", port: null, wildcard: true }],
    ["10.1.2.3:5432", { host: "10.1.2.3", port: 5432, wildcard: false }],
    ["[::1]:8080", { host: "::1", port: 8080, wildcard: false }],
  ])("parses %s", (raw, expected) => {
    expect(parseHostPattern(raw)).toEqual(expected);
  });

  it.each([
    "",
    "http://example.com",
    "exa mple.com",
    "example.com:0",
    "example.com:70000",
    "*.10.0.0.1",
    "a*.example.com",
    "::1",
  ])("refuses %j with a message", (raw) => {
    expect(typeof parseHostPattern(raw)).toBe("string");
  });

  it("matches hosts, ports and wildcard subdomains", () => {
    const wildcard = parseHostPattern("*.example.com") as Exclude<ReturnType<typeof parseHostPattern>, string>;
    expect(hostMatches(wildcard, "api.example.com", 443)).toBe(true);
    expect(hostMatches(wildcard, "a.b.example.com", 80)).toBe(true);
    expect(hostMatches(wildcard, "example.com", 443)).toBe(false);
    expect(hostMatches(wildcard, "evilexample.com", 443)).toBe(false);
    const exact = parseHostPattern("example.com:443") as Exclude<ReturnType<typeof parseHostPattern>, string>;
    expect(hostMatches(exact, "example.com", 443)).toBe(true);
    expect(hostMatches(exact, "example.com", 80)).toBe(false);
    expect(formatHostPattern(wildcard)).toBe("*.example.com");
  });
});

describe("normalizePolicy", () => {
  it("fills defaults: workspace only, no network, any program, no env, enforce", () => {
    expect(normalize(undefined)).toEqual(defaultPolicy());
    expect(normalize({})).toEqual(defaultPolicy());
  });

  it("cleans paths and hosts and removes duplicates", () => {
    const policy = normalize({
      read: ["/srv/data/", "/srv/data/../data"],
      net: ["Example.com:443", "example.com:443"],
    });
    expect(policy.read).toEqual(["/srv/data"]);
    expect(policy.net).toEqual(["example.com:443"]);
  });

  it("names the field of every refusal", () => {
    expect(fieldOf({ read: ["data"] })).toBe("read");
    expect(fieldOf({ write: ["/"] })).toBe("write");
    expect(fieldOf({ read: ["/run/docker.sock"] })).toBe("read");
    expect(fieldOf({ read: ["/var/lib/workcell/workers"] })).toBe("read");
    expect(fieldOf({ read: ["/var/lib"] })).toBe("read");
    expect(fieldOf({ write: ["/etc/ssl"] })).toBe("write");
    expect(fieldOf({ read: ["/run"] })).toBe("read");
    expect(fieldOf({ write: ["/home"] })).toBe("write");
    expect(fieldOf({ read: ["/var"] })).toBe("read");
    expect(fieldOf({ net: ["nope nope"] })).toBe("net");
    expect(fieldOf({ deny: { net: ["bad host!"] } })).toBe("deny.net");
    expect(fieldOf({ read: ["/srv/a"], deny: { read: ["/srv"] } })).toBe("deny.read");
    expect(fieldOf({ net: ["api.example.com"], deny: { net: ["*.example.com"] } })).toBe("deny.net");
    expect(fieldOf({ run: ["git", "npm"], deny: { run: ["git", "npm"] } })).toBe("deny.run");
  });

  it("keeps a deny that leaves something usable", () => {
    expect(normalize({ read: ["/srv/a", "/srv/b"], deny: { read: ["/srv/a/secret"] } }).deny.read).toEqual([
      "/srv/a/secret",
    ]);
  });
});

describe("mounts and deny overlays", () => {
  it("mounts writes rw and reads ro, and a write grant is not mounted twice", () => {
    const policy = normalize({ read: ["/srv/ro", "/srv/rw"], write: ["/srv/rw"] });
    expect(mountsFor(policy)).toEqual([
      { source: "/srv/rw", readOnly: false },
      { source: "/srv/ro", readOnly: true },
    ]);
  });

  it("hides denied reads inside grants and re-mounts denied writes read-only", () => {
    const policy = normalize({
      read: ["/srv/ro"],
      write: ["/srv/rw"],
      deny: { read: ["/srv/ro/secret"], write: ["/srv/rw/frozen"] },
    });
    expect(denyOverlays(policy)).toEqual({ hidden: ["/srv/ro/secret"], readOnly: ["/srv/rw/frozen"] });
  });
});

describe("decideEgress", () => {
  const policy: Policy = {
    ...defaultPolicy(),
    net: ["*.example.com:443", "10.0.0.5:5432"],
    deny: { ...defaultPolicy().deny, net: ["evil.example.com"] },
  };
  it("allows granted destinations and lets deny win", () => {
    expect(decideEgress(policy, "api.example.com", 443)).toEqual({ allowed: true });
    expect(decideEgress(policy, "10.0.0.5", 5432)).toEqual({ allowed: true });
    expect(decideEgress(policy, "evil.example.com", 443)).toMatchObject({ allowed: false });
  });

  it("refuses the rest with a message that says how to grant it", () => {
    expect(decideEgress(policy, "api.example.com", 80)).toEqual({
      allowed: false,
      message:
        'PermissionDenied: net access to "api.example.com:80" is not granted; grant it with permissions.net (e.g. "net": ["api.example.com:80"])',
    });
  });

  it("allows everything in audit mode but says it was audited", () => {
    expect(decideEgress({ ...policy, mode: "audit" }, "other.org", 443)).toEqual({ allowed: true, audited: true });
  });

  it("knows internal addresses", () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "::1", "fd00::1"])
      expect(isInternalAddress(address)).toBe(true);
    for (const address of ["93.184.216.34", "172.32.0.1", "2606:4700::1"])
      expect(isInternalAddress(address)).toBe(false);
  });
});

describe("admitEnv", () => {
  it("passes granted names, refuses the rest, and takes listed names from the host environment", () => {
    const policy = normalize({ env: ["API_KEY", "HOME_REGION"] });
    expect(admitEnv(policy, { API_KEY: "k", OTHER: "x" }, { HOME_REGION: "eu", PATH: "/bin" })).toEqual({
      env: { API_KEY: "k", HOME_REGION: "eu" },
      refused: ["OTHER"],
    });
  });

  it("never passes WORKCELL_* variables, even with env: true", () => {
    const policy = normalize({ env: true });
    expect(admitEnv(policy, { WORKCELL_TOKEN: "t", A: "1" }, { WORKCELL_TOKEN: "t" })).toEqual({
      env: { A: "1" },
      refused: ["WORKCELL_TOKEN"],
    });
  });

  it("lets deny win and, in audit mode, passes refused names", () => {
    expect(admitEnv(normalize({ env: true, deny: { env: ["B"] } }), { B: "1" }, {}).refused).toEqual(["B"]);
    expect(admitEnv(normalize({ mode: "audit" }), { B: "1" }, {})).toEqual({ env: { B: "1" }, refused: ["B"] });
  });
});

describe("suggestPolicy", () => {
  it("grants exactly what was recorded and switches to enforce", () => {
    const policy = normalize({ mode: "audit", run: ["git"], net: ["a.com:443"] });
    const suggested = suggestPolicy(policy, [
      { kind: "run", target: "curl" },
      { kind: "net", target: "b.com:443" },
      { kind: "env", target: "TOKEN" },
    ]);
    expect(suggested).toMatchObject({
      mode: "enforce",
      run: ["git", "curl"],
      net: ["a.com:443", "b.com:443"],
      env: ["TOKEN"],
      read: [],
      write: [],
    });
  });

  it("drops denies that caused refusals and opens container paths outside every grant", () => {
    const policy = normalize({ mode: "audit", deny: { run: ["rm"], read: ["/workspace/private"] } });
    const suggested = suggestPolicy(policy, [
      { kind: "run", target: "rm" },
      { kind: "read", target: "/workspace/private/a.txt" },
      { kind: "read", target: "/usr/share/dict/words" },
    ]);
    expect(suggested.deny.run).toEqual([]);
    expect(suggested.deny.read).toEqual([]);
    expect(suggested.read).toBe(true);
  });

  it("changes nothing when nothing was recorded", () => {
    const policy = normalize({ run: ["git"] });
    expect(suggestPolicy(policy, [])).toEqual(policy);
  });
});
