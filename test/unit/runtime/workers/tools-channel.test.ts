import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ContainerDriver, ExecSession } from "../../../../runtime/docker/container-driver.js";
import { ToolsChannels } from "../../../../runtime/workers/tools-channel.js";
import { serveChannel, type ModeHandler } from "../../../../tools/commands/serve-command.js";

/** A driver whose every attach is a `serve` process running in this process with `handle`. */
function channelDriver(handle: ModeHandler): { driver: ContainerDriver; attaches: () => number; execs: string[][] } {
  let attaches = 0;
  const execs: string[][] = [];
  const driver = {
    exec: async (_id: string, options: { argv: string[] }) => {
      execs.push(options.argv);
      return { exitCode: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
    },
    attach: async (): Promise<ExecSession> => {
      attaches += 1;
      const stdin = new PassThrough();
      const stdout = new PassThrough();
      const served = serveChannel(stdin, stdout, handle, 1024 * 1024).then(() => {
        stdout.end();
        return 0;
      });
      return { stdin, stdout, stderr: new PassThrough(), exited: served, close: () => stdin.end() };
    },
    inspect: async () => ({
      id: "c",
      name: "c",
      running: true,
      status: "running",
      exitCode: 0,
      oomKilled: false,
      labels: {},
    }),
  } as unknown as ContainerDriver;
  return { driver, attaches: () => attaches, execs };
}

const Echo = z.object({ mode: z.string(), args: z.array(z.string()), input: z.string() });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the control channel", () => {
  it("answers concurrent requests over one process, each with its own answer, in whatever order they finish", async () => {
    const { driver, attaches } = channelDriver(async (mode, args, input) => {
      await sleep(args[0] === "slow" ? 30 : 1);
      return { mode, args: [...args], input };
    });
    const channels = new ToolsChannels(driver);
    const [slow, fast, third] = await Promise.all([
      channels.call("c", "run", ["slow"], Echo, { input: "1", timeoutMs: 5_000 }),
      channels.call("c", "diff", ["b"], Echo, { input: "2", timeoutMs: 5_000 }),
      channels.call("c", "kill-marked", [], Echo, { input: "3\nwith a newline", timeoutMs: 5_000 }),
    ]);
    expect([slow, fast, third]).toEqual([
      { mode: "run", args: ["slow"], input: "1" },
      { mode: "diff", args: ["b"], input: "2" },
      { mode: "kill-marked", args: [], input: "3\nwith a newline" },
    ]);
    expect(attaches()).toBe(1);
    await channels.closeAll();
  });

  it("turns an {error} answer into a refusal and a wrong shape into an internal error", async () => {
    const { driver } = channelDriver(async (_mode, args) =>
      args[0] === "denied"
        ? { error: 'PermissionDenied: run access to "curl"', code: "permission_denied" }
        : { unexpected: true },
    );
    const channels = new ToolsChannels(driver);
    await expect(channels.call("c", "run", ["denied"], Echo, { timeoutMs: 5_000 })).rejects.toMatchObject({
      code: "permission_denied",
    });
    await expect(channels.call("c", "run", ["odd"], Echo, { timeoutMs: 5_000 })).rejects.toMatchObject({
      code: "internal",
      message: expect.stringContaining("unexpected shape"),
    });
    await channels.closeAll();
  });

  it("closes when idle, after a request past its deadline (killing the process it announced), and opens afresh on the next call", async () => {
    const { driver, attaches, execs } = channelDriver(async (mode, args, input) => {
      if (args[0] === "hang") await sleep(500);
      return { mode, args: [...args], input };
    });
    const channels = new ToolsChannels(driver, 50);
    await channels.call("c", "run", [], Echo, { timeoutMs: 5_000 });
    await sleep(120);
    await channels.call("c", "run", [], Echo, { timeoutMs: 5_000 });
    expect(attaches()).toBe(2);
    await expect(channels.call("c", "run", ["hang"], Echo, { timeoutMs: 20 })).rejects.toMatchObject({
      code: "timeout",
    });
    expect(execs).toEqual([["kill", "-KILL", String(process.pid)]]);
    await channels.call("c", "run", [], Echo, { timeoutMs: 5_000 });
    expect(attaches()).toBe(3);
    await channels.closeAll();
  });

  it("fails requests in flight when the process ends, saying the sandbox gave no answer", async () => {
    const { driver } = channelDriver(async () => {
      await sleep(1_000);
      return {};
    });
    const channels = new ToolsChannels(driver);
    const call = channels.call("c", "run", [], Echo, { timeoutMs: 5_000 });
    await sleep(10);
    await channels.closeAll();
    await expect(call).rejects.toMatchObject({ code: "internal", message: expect.stringContaining("gave no answer") });
  });
});
