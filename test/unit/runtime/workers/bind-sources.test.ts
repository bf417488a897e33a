import { mkdir, mkdtemp, rename, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { normalizePolicy } from "../../../../runtime/permissions/policy.js";
import {
  admitBindSources,
  bindSourcePaths,
  compareIdentity,
  verifyBindSources,
} from "../../../../runtime/workers/bind-sources.js";

const policyOf = (input: Parameters<typeof normalizePolicy>[0]) =>
  normalizePolicy(input, { dataDir: "/var/lib/workcell" });

describe("bind sources", () => {
  it("lists grants, deny.write overlays and hidden deny.read paths with their fields", () => {
    const policy = policyOf({
      write: ["/srv/w"],
      read: ["/srv/r"],
      deny: { write: ["/srv/w/locked"], read: ["/srv/r/secret"] },
    });
    expect(bindSourcePaths(policy)).toEqual([
      { path: "/srv/w", field: "write", required: true },
      { path: "/srv/r", field: "read", required: true },
      { path: "/srv/w/locked", field: "deny.write", required: false },
      { path: "/srv/r/secret", field: "deny.read", required: false },
    ]);
  });

  it("compares identities by device and inode", () => {
    const recorded = { path: "/srv/w", dev: "1", ino: "2" };
    expect(compareIdentity(recorded, { dev: "1", ino: "2" })).toBeUndefined();
    expect(compareIdentity(recorded, { dev: "1", ino: "3" })).toMatch(/replaced/);
    expect(compareIdentity(recorded, undefined)).toMatch(/gone/);
  });
});

describe("admitting and verifying bind sources on the host", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "bind-sources-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses a grant that goes through a symlink, naming the field", async () => {
    await mkdir(path.join(dir, "real"));
    await symlink(path.join(dir, "real"), path.join(dir, "alias"));
    await expect(admitBindSources(policyOf({ read: [path.join(dir, "alias")] }), {})).rejects.toMatchObject({
      code: "invalid_input",
      details: { field: "permissions.read" },
    });
  });

  it("refuses a grant that holds the DOCKER_HOST socket", async () => {
    await mkdir(path.join(dir, "engine"));
    const fake = path.join(dir, "engine", "api.sock");
    const { createServer } = await import("node:net");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(fake, resolve));
    try {
      await expect(
        admitBindSources(policyOf({ write: [dir] }), { DOCKER_HOST: `unix://${fake}` }),
      ).rejects.toMatchObject({ details: { field: "permissions.write" } });
    } finally {
      server.close();
    }
  });

  it("refuses to start once a deny overlay's parent is swapped for a symlink or another directory", async () => {
    const locked = path.join(dir, "grant", "p", "locked");
    await mkdir(locked, { recursive: true });
    await mkdir(path.join(dir, "elsewhere", "locked"), { recursive: true });
    const policy = policyOf({ write: [path.join(dir, "grant")], deny: { write: [locked] } });
    const recorded = await admitBindSources(policy, {});
    await expect(verifyBindSources("w1", policy, recorded)).resolves.toBeUndefined();

    await rename(path.join(dir, "grant", "p"), path.join(dir, "grant", "p.old"));
    await symlink(path.join(dir, "elsewhere"), path.join(dir, "grant", "p"));
    await expect(verifyBindSources("w1", policy, recorded)).rejects.toMatchObject({
      code: "conflict",
      details: { path: locked },
    });

    await rm(path.join(dir, "grant", "p"));
    await mkdir(path.join(dir, "grant", "p", "locked"), { recursive: true });
    await expect(verifyBindSources("w1", policy, recorded)).rejects.toThrow(/replaced/);
  });
});
