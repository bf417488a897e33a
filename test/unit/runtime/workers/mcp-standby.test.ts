import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { ContainerDriver, ExecSession } from "../../../../runtime/docker/container-driver.js";
import { McpServers } from "../../../../runtime/workers/mcp-servers.js";
import { McpStandby } from "../../../../runtime/workers/mcp-standby.js";

interface FakeSession extends ExecSession {
  closed: boolean;
  end(): void;
}

function fakeDriver(): { driver: ContainerDriver; sessions: FakeSession[]; envs: (readonly string[] | undefined)[] } {
  const sessions: FakeSession[] = [];
  const envs: (readonly string[] | undefined)[] = [];
  const driver = {
    attach: async (_id: string, _argv: readonly string[], options: { env?: readonly string[] }) => {
      envs.push(options.env);
      let end: () => void = () => undefined;
      const exited = new Promise<number>((resolve) => (end = () => resolve(0)));
      const session: FakeSession = {
        stdin: new PassThrough(),
        stdout: new PassThrough(),
        stderr: new PassThrough(),
        exited,
        closed: false,
        end,
        close() {
          session.closed = true;
          end();
        },
      };
      sessions.push(session);
      return session;
    },
  } as unknown as ContainerDriver;
  return { driver, sessions, envs };
}

describe("servers started ahead of the first session", () => {
  it("hands the waiting server to the container's first session once, when its environment matches", async () => {
    const { driver, sessions, envs } = fakeDriver();
    const standby = new McpStandby(new McpServers(driver, { sockets: false }));
    standby.prime({ containerId: "c1", runDir: "/nonexistent" }, []);
    standby.prime({ containerId: "c1", runDir: "/nonexistent" }, []);
    expect(await standby.take("c1", [])).toBe(sessions[0]);
    expect(await standby.take("c1", [])).toBeUndefined();
    expect(sessions).toHaveLength(1);
    expect(envs).toEqual([[]]);
    standby.closeAll();
  });

  it("ends a server whose environment no longer matches, or whose process has ended, instead of handing it over", async () => {
    const { driver, sessions } = fakeDriver();
    const standby = new McpStandby(new McpServers(driver, { sockets: false }));
    standby.prime({ containerId: "c1", runDir: "/nonexistent" }, []);
    expect(await standby.take("c1", ['WORKCELL_GATE={"task":null}'])).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sessions[0]?.closed).toBe(true);
    standby.prime({ containerId: "c2", runDir: "/nonexistent" }, []);
    await new Promise((resolve) => setImmediate(resolve));
    sessions[1]?.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await standby.take("c2", [])).toBeUndefined();
    expect(standby.waiting).toBe(0);
  });

  it("ends a server nobody took within its time", async () => {
    const { driver, sessions } = fakeDriver();
    const standby = new McpStandby(new McpServers(driver, { sockets: false }), 20);
    standby.prime({ containerId: "c1", runDir: "/nonexistent" }, []);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(sessions[0]?.closed).toBe(true);
    expect(await standby.take("c1", [])).toBeUndefined();
  });
});
