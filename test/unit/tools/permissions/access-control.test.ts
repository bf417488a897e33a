import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccessControl, PermissionDeniedError } from "../../../../tools/permissions/access-control.js";
import { queryPermission } from "../../../../tools/permissions/decide.js";
import { PolicySource } from "../../../../tools/permissions/policy-file.js";
import { defaultPolicyFile, type PolicyFile } from "../../../../contract/policy.js";

let base: string;
let workspace: string;
let granted: string;
let policyFile: string;

async function withPolicy(policy: Partial<PolicyFile>): Promise<AccessControl> {
  await writeFile(policyFile, JSON.stringify({ ...defaultPolicyFile(), ...policy }));
  return new AccessControl(workspace, new PolicySource(policyFile));
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "workcell-access-")));
  workspace = path.join(base, "workspace");
  granted = path.join(base, "granted");
  await mkdir(path.join(workspace, "src"), { recursive: true });
  await mkdir(path.join(granted, "secret"), { recursive: true });
  await writeFile(path.join(granted, "data.txt"), "data");
  policyFile = path.join(base, "policy.json");
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const refusal = async (promise: Promise<unknown>) =>
  promise.then(
    () => "resolved",
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );

describe("AccessControl.resolve", () => {
  it("always allows the workspace, read and write", async () => {
    const access = await withPolicy({});
    expect((await access.resolve("src/a.ts", "write")).absolute).toBe(path.join(workspace, "src", "a.ts"));
  });

  it("allows a read grant for reading only, confined to the grant", async () => {
    const access = await withPolicy({ read: [granted] });
    expect((await access.resolve(path.join(granted, "data.txt"), "read")).relative).toBe(
      path.join(granted, "data.txt"),
    );
    expect(await refusal(access.resolve(path.join(granted, "data.txt"), "write"))).toBe(
      `PermissionDenied: write access to "${path.join(granted, "data.txt")}" is not granted; grant it with permissions.write`,
    );
    expect(await refusal(access.resolve(path.join(base, "elsewhere"), "read"))).toMatch(
      /PermissionDenied: read access to/,
    );
  });

  it("lets deny win inside a grant", async () => {
    const access = await withPolicy({
      read: [granted],
      deny: { ...defaultPolicyFile().deny, read: [path.join(granted, "secret")] },
    });
    expect(await refusal(access.resolve(path.join(granted, "secret", "x"), "read"))).toMatch(
      /read access to ".*secret\/x"/,
    );
  });

  it("read: true reads anywhere in the container but still refuses writes outside", async () => {
    const access = await withPolicy({ read: true });
    expect((await access.resolve("/etc/hostname", "read")).absolute).toBe("/etc/hostname");
    expect(await refusal(access.resolve("/etc/hostname", "write"))).toMatch(/write access/);
  });

  it("in audit mode allows and records instead of refusing", async () => {
    const access = await withPolicy({ mode: "audit" });
    expect((await access.resolve("/etc/hostname", "read")).absolute).toBe("/etc/hostname");
    await access.checkCommand("curl x");
    expect(access.drainAudit()).toEqual([{ kind: "read", target: "/etc/hostname" }]);
    const strict = await withPolicy({ mode: "audit", run: ["git"] });
    await strict.checkCommand("git status && curl x");
    await strict.resolve("/etc/hostname", "read");
    expect(strict.drainAudit()).toEqual([
      { kind: "run", target: "curl" },
      { kind: "read", target: "/etc/hostname" },
    ]);
    expect(strict.drainAudit()).toEqual([]);
  });

  it("re-reads the policy file when it changes", async () => {
    const access = await withPolicy({ run: ["git"] });
    await expect(access.checkCommand("npm test")).rejects.toThrow(PermissionDeniedError);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeFile(policyFile, JSON.stringify({ ...defaultPolicyFile(), run: ["git", "npm"] }));
    await expect(access.checkCommand("npm test")).resolves.toBeUndefined();
  });
});

describe("queryPermission", () => {
  const policy: PolicyFile = {
    ...defaultPolicyFile(),
    net: ["*.example.com:443"],
    run: ["/usr/bin/git", "npm"],
    env: ["TOKEN"],
    deny: { ...defaultPolicyFile().deny, run: ["rm"] },
  };
  it("answers granted, denied, or prompt when a human would be asked", () => {
    expect(queryPermission(policy, "net", "api.example.com:443", "/workspace")).toBe("granted");
    expect(queryPermission(policy, "net", "api.example.com:80", "/workspace")).toBe("denied");
    expect(queryPermission(policy, "run", "git", "/workspace")).toBe("granted");
    expect(queryPermission(policy, "run", "rm", "/workspace")).toBe("denied");
    expect(queryPermission(policy, "env", "TOKEN", "/workspace")).toBe("granted");
    expect(queryPermission(policy, "read", "src/x", "/workspace")).toBe("granted");
    expect(queryPermission({ ...policy, prompt: true }, "run", "curl", "/workspace")).toBe("prompt");
    expect(queryPermission({ ...policy, prompt: true }, "run", "rm", "/workspace")).toBe("denied");
  });
});
