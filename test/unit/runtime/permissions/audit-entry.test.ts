import { describe, expect, it } from "vitest";
import { acceptAuditEntries, isControlPlaneEnvName } from "../../../../runtime/permissions/audit-entry.js";
import { normalizePolicy } from "../../../../runtime/permissions/policy.js";
import { suggestPermissions } from "../../../../runtime/permissions/suggest.js";

const audited = normalizePolicy({ mode: "audit", run: ["git"] }, { dataDir: "/var/lib/workcell" });

describe("acceptAuditEntries", () => {
  it("keeps well-formed entries with valid targets and drops the rest", () => {
    const raw = [
      { kind: "run", target: "curl" },
      { kind: "read", target: "/usr/share/dict/words" },
      { kind: "net", target: "example.com:443" },
      { kind: "read", target: "relative" },
      { kind: "write", target: "/tmp/../etc/passwd" },
      { kind: "net", target: "*.example.com" },
      { kind: "run", target: "two words" },
      { kind: "admin", target: "x" },
      "not an entry",
    ];
    expect(acceptAuditEntries(raw, "sandbox")).toEqual([
      { kind: "run", target: "curl" },
      { kind: "read", target: "/usr/share/dict/words" },
      { kind: "net", target: "example.com:443" },
    ]);
  });

  it("keeps env entries only when the host recorded them", () => {
    const raw = [{ kind: "env", target: "API_KEY" }];
    expect(acceptAuditEntries(raw, "sandbox")).toEqual([]);
    expect(acceptAuditEntries(raw, "host")).toEqual(raw);
    expect(acceptAuditEntries([{ kind: "env", target: "A=B" }], "host")).toEqual([]);
  });

  it("ignores what is not a list and caps a report's length", () => {
    expect(acceptAuditEntries({ kind: "run", target: "curl" }, "sandbox")).toEqual([]);
    expect(
      acceptAuditEntries(
        Array.from({ length: 1_000 }, (_, i) => ({ kind: "run", target: `p${i}` })),
        "sandbox",
      ),
    ).toHaveLength(200);
  });
});

describe("suggestPermissions", () => {
  it("never suggests the control plane's own env names", () => {
    expect(isControlPlaneEnvName("WORKCELL_TOKEN")).toBe(true);
    expect(isControlPlaneEnvName("DOCKER_HOST")).toBe(true);
    const { permissions, skipped } = suggestPermissions(audited, [
      { kind: "env", target: "WORKCELL_TOKEN" },
      { kind: "env", target: "API_KEY" },
    ]);
    expect(permissions.env).toEqual(["API_KEY"]);
    expect(skipped).toEqual([expect.objectContaining({ kind: "env", target: "WORKCELL_TOKEN" })]);
  });

  it("does not turn a whole tree, the sandbox's own trees or invalid targets into read/write: true", () => {
    const { permissions, skipped } = suggestPermissions(audited, [
      { kind: "read", target: "/" },
      { kind: "write", target: "/etc" },
      { kind: "read", target: "/proc/1/environ" },
      { kind: "write", target: "/run/workcell/policy.json" },
      { kind: "read", target: "/a/../b" },
    ]);
    expect(permissions.read).toEqual([]);
    expect(permissions.write).toEqual([]);
    expect(skipped.map((entry) => entry.target)).toEqual([
      "/",
      "/etc",
      "/proc/1/environ",
      "/run/workcell/policy.json",
      "/a/../b",
    ]);
  });
});
