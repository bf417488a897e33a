import { describe, expect, it } from "vitest";
import { normalizeBareFlags, permissionsFromFlags } from "../../../cli/permission-flags.js";

describe("Deno-style permission flags", () => {
  it("turn lists and bare flags into the policy", () => {
    expect(
      permissionsFromFlags({
        "allow-net": "api.example.com:443, *.pypi.org",
        "allow-run": "",
        "allow-read": "/srv/data",
        "allow-env": "TOKEN",
      }),
    ).toEqual({
      net: ["api.example.com:443", "*.pypi.org"],
      run: true,
      read: ["/srv/data"],
      env: ["TOKEN"],
    });
  });

  it("collect denies, prompt and audit", () => {
    expect(
      permissionsFromFlags({ "deny-run": "rm,curl", "deny-read": "/srv/data/secret", prompt: true, audit: true }),
    ).toEqual({
      deny: { run: ["rm", "curl"], read: ["/srv/data/secret"] },
      prompt: true,
      mode: "audit",
    });
    expect(() => permissionsFromFlags({ "deny-net": true })).toThrow(/--deny-net needs a list/);
  });

  it("say nothing when no flag is given (the secure defaults apply)", () => {
    expect(permissionsFromFlags({})).toEqual({});
  });

  it("rewrite bare flags so parseArgs accepts them", () => {
    expect(normalizeBareFlags(["spawn", "/repo", "--allow-net", "--allow-run=git", "--json"])).toEqual([
      "spawn",
      "/repo",
      "--allow-net=",
      "--allow-run=git",
      "--json",
    ]);
  });
});
