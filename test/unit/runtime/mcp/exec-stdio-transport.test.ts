import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { ExecSession } from "../../../../runtime/docker/container-driver.js";
import { ExecStdioTransport } from "../../../../runtime/mcp/exec-stdio-transport.js";

function fakeExec() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let exit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => {
    exit = resolve;
  });
  const session: ExecSession = { stdin, stdout, stderr, exited, close: () => exit(0) };
  return { session, stdin, stdout, stderr, exit };
}

async function started() {
  const exec = fakeExec();
  const transport = new ExecStdioTransport(exec.session);
  const received: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error);
  await transport.start();
  return { ...exec, transport, received, errors };
}

const note = (text: string) => ({
  jsonrpc: "2.0" as const,
  method: "notifications/message",
  params: { level: "info", data: text },
});

describe("ExecStdioTransport", () => {
  it("frames on bytes: a multi-byte character split across chunks survives", async () => {
    const { stdout, received } = await started();
    const line = Buffer.from(`${JSON.stringify(note("héllo ✓ 🎉"))}\n`);
    const cut = line.indexOf(Buffer.from("🎉")) + 2; // inside the 4-byte emoji
    stdout.write(line.subarray(0, cut));
    stdout.write(line.subarray(cut));
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toEqual([note("héllo ✓ 🎉")]);
  });

  it("splits several messages that arrive in one chunk", async () => {
    const { stdout, received } = await started();
    stdout.write(
      `${JSON.stringify(note("a"))}\n${JSON.stringify(note("b"))}\n${JSON.stringify(note("c")).slice(0, 10)}`,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(received.map((m) => (m as unknown as { params: { data: string } }).params.data)).toEqual(["a", "b"]);
  });

  it("reassembles a 5 MB single-line message from many small chunks", async () => {
    const { stdout, received } = await started();
    const big = "x".repeat(5 * 1024 * 1024);
    const line = Buffer.from(`${JSON.stringify(note(big))}\n`);
    for (let offset = 0; offset < line.length; offset += 64 * 1024)
      stdout.write(line.subarray(offset, offset + 64 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toHaveLength(1);
    expect((received[0] as unknown as { params: { data: string } }).params.data.length).toBe(big.length);
  });

  it("reports a malformed line and keeps going", async () => {
    const { stdout, received, errors } = await started();
    stdout.write(`not json\n${JSON.stringify(note("after"))}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(1);
    expect(received).toEqual([note("after")]);
  });

  it("writes one newline-terminated line per message", async () => {
    const { stdin, transport } = await started();
    const chunks: Buffer[] = [];
    stdin.on("data", (chunk: Buffer) => chunks.push(chunk));
    await transport.send(note("out"));
    expect(Buffer.concat(chunks).toString()).toBe(`${JSON.stringify(note("out"))}\n`);
  });

  it("closes when the exec ends, and refuses to send afterwards", async () => {
    const { transport, exit } = await started();
    let closed = 0;
    transport.onclose = () => {
      closed += 1;
    };
    exit(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(1);
    await expect(transport.send(note("late"))).rejects.toThrow(/exited/);
    await transport.close();
    expect(closed).toBe(1);
  });
});
