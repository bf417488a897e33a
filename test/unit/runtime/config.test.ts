import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_REPO_POOL_SIZE, loadConfig } from "../../../runtime/config/config.js";

describe("loadConfig", () => {
  it("uses secure defaults: loopback, port 7070, ./.workcell", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 7070,
      dataDir: path.resolve(".workcell"),
      token: undefined,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("reads the environment and lets explicit overrides win", () => {
    const config = loadConfig(
      { WORKCELL_PORT: "8080", WORKCELL_HOST: "0.0.0.0", WORKCELL_DATA_DIR: "/var/wc" },
      { port: 9090 },
    );
    expect(config).toMatchObject({ host: "0.0.0.0", port: 9090, dataDir: "/var/wc" });
  });

  it("names the variable when a value is invalid", () => {
    expect(() => loadConfig({ WORKCELL_PORT: "seventy" })).toThrow(/WORKCELL_PORT/);
    expect(() => loadConfig({ WORKCELL_TOKEN: "short" })).toThrow(/WORKCELL_TOKEN: must be at least 16 characters/);
  });

  it("never puts the token value in its error message", () => {
    try {
      loadConfig({ WORKCELL_TOKEN: "s3cr3t", WORKCELL_PORT: "x" });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain("s3cr3t");
    }
  });

  it("reads WORKCELL_POOL_REPOS as PATH[=SIZE] entries, resolved, with a default size", () => {
    const config = loadConfig({ WORKCELL_POOL_REPOS: " /srv/app=4, relative/lib ,," });
    expect(config.poolRepos).toEqual([
      { repo: "/srv/app", size: 4 },
      { repo: path.resolve("relative/lib"), size: DEFAULT_REPO_POOL_SIZE },
    ]);
    expect(loadConfig({}).poolRepos).toEqual([]);
  });

  it("refuses a WORKCELL_POOL_REPOS entry with a bad size or listed twice, naming the entry", () => {
    expect(() => loadConfig({ WORKCELL_POOL_REPOS: "/srv/app=0" })).toThrow(
      /WORKCELL_POOL_REPOS: "\/srv\/app=0" is not PATH or PATH=SIZE with SIZE from 1 to 64/,
    );
    expect(() => loadConfig({ WORKCELL_POOL_REPOS: "/srv/app=65" })).toThrow(/SIZE from 1 to 64/);
    expect(() => loadConfig({ WORKCELL_POOL_REPOS: "/srv/app,/srv/app/=3" })).toThrow(/\/srv\/app is listed twice/);
  });
});
