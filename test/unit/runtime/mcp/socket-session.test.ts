import { mkdtemp, readdir, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ContainerDriver, ExecSession } from "../../../../runtime/docker/container-driver.js";
import { openSessionSocket, SocketHandshakeError } from "../../../../runtime/mcp/socket-session.js";
import { McpServers } from "../../../../runtime/workers/mcp-servers.js";

let runDir: string;

beforeEach(async () => {
  runDir = await mkdtemp(path.join(tmpdir(), "workcell-socket-"));
});

afterEach(async () => {
  await rm(runDir, { recursive: true, force: true });
});

/** A started server's exec as the control plane sees it: stdin it writes the token to, and an exit it can cause. */
function fakeExec(): ExecSession & { token: Promise<string>; exit(code: number): void; closed: boolean } {
  const stdin = new PassThrough();
  let exit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => (exit = resolve));
  const token = new Promise<string>((resolve) => {
    let text = "";
    stdin.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(text.slice(0, text.indexOf("\n")));
    });
  });
  const exec = {
    stdin,
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    exited,
    token,
    exit,
    closed: false,
    close() {
      exec.closed = true;
      exit(0);
    },
  };
  return exec;
}

/** Connects to the session socket and writes `line` first, as a server (or an intruder) would. */
async function connectWith(socketPath: string, line: string): Promise<Socket & { ended: Promise<void> }> {
  const plain = connect(socketPath);
  const socket = Object.assign(plain, { ended: new Promise<void>((resolve) => plain.once("close", () => resolve())) });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.write(line);
  return socket;
}

/** Plays the in-container server: answers the preflight ping, and hands every later line to `lines`. */
function serve(server: Socket): { lines: string[]; next(): Promise<string> } {
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffered = "";
  server.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    let end: number;
    while ((end = buffered.indexOf("\n")) !== -1) {
      const line = buffered.slice(0, end + 1);
      buffered = buffered.slice(end + 1);
      const message = JSON.parse(line) as { id?: unknown; method?: string };
      if (message.method === "ping" && message.id === "workcell-preflight") {
        server.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: {} })}\n`);
        continue;
      }
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  return {
    lines,
    next: () => {
      const line = lines.shift();
      return line !== undefined ? Promise.resolve(line) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

describe("a session's socket in the control directory", () => {
  it("carries the session for the connection that shows the token, and leaves no file behind", async () => {
    const socket = await openSessionSocket(runDir);
    expect(socket.name).toMatch(/^mcp-[0-9a-f]{16}\.sock$/);
    const exec = fakeExec();
    const connected = socket.connect(exec);
    const server = await connectWith(path.join(runDir, socket.name), `${await exec.token}\n{"early":1}\n`);
    const played = serve(server);
    const session = await connected;
    expect(await readdir(runDir)).toEqual([]);
    // Both ways: what the server wrote before the preflight answer (kept; the answer is not),
    // then a request and its answer.
    const received: string[] = [];
    session.stdout.on("data", (chunk: Buffer) => received.push(chunk.toString()));
    session.stdin.write('{"request":2}\n');
    expect(await played.next()).toBe('{"request":2}\n');
    server.write('{"answer":2}\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received.join("")).toBe('{"early":1}\n{"answer":2}\n');
    // Closing the session ends the connection and the exec.
    session.close();
    await server.ended;
    expect(exec.closed).toBe(true);
  });

  it("drops a connection from anyone else in the sandbox: a wrong token, no newline, or silence", async () => {
    const socket = await openSessionSocket(runDir);
    const exec = fakeExec();
    const connected = socket.connect(exec);
    const socketPath = path.join(runDir, socket.name);
    const token = await exec.token;
    const forged = await connectWith(socketPath, `${"0".repeat(64)}\n{"jsonrpc":"2.0","id":0,"result":{}}\n`);
    const overlong = await connectWith(socketPath, "f".repeat(200));
    const shortened = await connectWith(socketPath, `${token.slice(0, 63)}\n`);
    await Promise.all([forged.ended, overlong.ended, shortened.ended]);
    const silent = await connectWith(socketPath, "");
    const server = await connectWith(socketPath, `${token}\n`);
    const played = serve(server);
    const session = await connected;
    // The silent one is dropped when the session is settled; only the server's connection remains.
    await silent.ended;
    session.stdin.write('{"hello":1}\n');
    expect(await played.next()).toBe('{"hello":1}\n');
    // The token is spent: the socket is gone, so nobody can connect again.
    await expect(connectWith(socketPath, `${token}\n`)).rejects.toThrow(/ENOENT/);
    session.close();
  });

  it("fails with a handshake error when the server exits or never connects, and removes the socket", async () => {
    const exits = await openSessionSocket(runDir);
    const exec = fakeExec();
    const connecting = exits.connect(exec);
    exec.exit(1);
    await expect(connecting).rejects.toThrow(SocketHandshakeError);
    await expect(connecting).rejects.toThrow(/exited \(code 1\) before connecting/);
    const silent = await openSessionSocket(runDir);
    await expect(silent.connect(fakeExec(), 100)).rejects.toThrow(/did not connect within 100 ms/);
    // Connected, but never answering the preflight ping: not a server that can carry a session.
    const mute = await openSessionSocket(runDir);
    const muteExec = fakeExec();
    const connectingMute = mute.connect(muteExec, 300);
    const muted = await connectWith(path.join(runDir, mute.name), `${await muteExec.token}\n`);
    muted.resume();
    await expect(connectingMute).rejects.toThrow(/did not answer its preflight ping within 300 ms/);
    await muted.ended;
    expect(await readdir(runDir)).toEqual([]);
  });
});

describe("starting MCP servers", () => {
  /** A driver whose servers never connect to their socket (a gVisor without --host-uds=open). */
  function driverWithoutSockets() {
    const argvs: string[][] = [];
    const driver = {
      attach: async (_id: string, argv: readonly string[]) => {
        argvs.push([...argv]);
        const exec = fakeExec();
        // A server told to use a socket it cannot reach exits at once.
        if (argv.includes("--socket")) setTimeout(() => exec.exit(1), 5);
        return exec;
      },
    } as unknown as ContainerDriver;
    return { driver, argvs };
  }

  it("falls back to stdio when the server cannot connect, and stays on stdio for that runtime", async () => {
    const { driver, argvs } = driverWithoutSockets();
    const servers = new McpServers(driver);
    await servers.start({ containerId: "c1", runDir, runtime: "runsc" }, []);
    await servers.start({ containerId: "c1", runDir, runtime: "runsc" }, []);
    expect(argvs.map((argv) => argv.slice(3))).toEqual([
      ["mcp", "--socket", expect.stringMatching(/^mcp-/)],
      ["mcp"],
      ["mcp"],
    ]);
    expect(servers.fellBackToStdio("runsc")).toBe(true);
    // Another runtime still tries its socket first.
    await servers.start({ containerId: "c2", runDir, runtime: "runc" }, []);
    expect(argvs[3]?.slice(3, 5)).toEqual(["mcp", "--socket"]);
  });

  it("uses stdio for a session whose control directory cannot hold a socket, without giving up on the runtime", async () => {
    const { driver, argvs } = driverWithoutSockets();
    const servers = new McpServers(driver);
    await servers.start({ containerId: "c1", runDir: path.join(runDir, "missing", "dir"), runtime: "runc" }, []);
    expect(argvs.map((argv) => argv.slice(3))).toEqual([["mcp"]]);
    expect(servers.fellBackToStdio("runc")).toBe(false);
  });

  it("starts a session over stdio for the runtimes the socket rule leaves out", async () => {
    const argvs: string[][] = [];
    const driver = {
      attach: async (_id: string, argv: readonly string[]) => {
        argvs.push([...argv]);
        return fakeExec();
      },
    } as unknown as ContainerDriver;
    const servers = new McpServers(driver, { sockets: (runtime) => runtime !== "runsc" });
    expect(servers.usesSocket("runsc")).toBe(false);
    expect(servers.usesSocket("runc")).toBe(true);
    await servers.start({ containerId: "c1", runDir, runtime: "runsc" }, []);
    expect(argvs.map((argv) => argv.slice(3))).toEqual([["mcp"]]);
  });
});
