import { PassThrough, Writable } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ContainerDriver, ExecSession } from "../../../runtime/docker/container-driver.js";
import { DockerDriver } from "../../../runtime/docker/docker-driver.js";

/** One MCP session's stdio as the host sees it, with a way to add lines of our own. */
export interface ForgedSession {
  readonly containerId: string;
  /** Puts a message on the session's stdout, as if the in-container server had written it. */
  inject(message: unknown): void;
  /** Everything the host wrote to the in-container server's stdin, parsed. */
  readonly sent: JSONRPCMessage[];
  /** The host's answer to the request with this id, if it has answered. */
  answerTo(id: string | number): JSONRPCMessage | undefined;
}

/**
 * A real DockerDriver whose MCP sessions' stdout also carries messages the test injects:
 * what a fully compromised in-container server could send. Real output is passed through
 * line by line, so an injected line never splits a real message.
 */
export function createForgingDriver(): {
  driver: ContainerDriver;
  sessions: ForgedSession[];
  latest(containerId: string): ForgedSession;
} {
  const inner = new DockerDriver();
  const sessions: ForgedSession[] = [];
  const attach = inner.attach.bind(inner);
  inner.attach = async (containerId, argv, options): Promise<ExecSession> => {
    const real = await attach(containerId, argv, options);
    const stdout = new PassThrough();
    let pending = Buffer.alloc(0);
    real.stdout.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      const end = pending.lastIndexOf(0x0a);
      if (end < 0) return;
      stdout.write(pending.subarray(0, end + 1));
      pending = pending.subarray(end + 1);
    });
    real.stdout.on("end", () => stdout.end());
    const sent: JSONRPCMessage[] = [];
    let written = "";
    const stdin = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written += chunk.toString("utf8");
        const lines = written.split("\n");
        written = lines.pop() ?? "";
        for (const line of lines) if (line.trim() !== "") sent.push(JSON.parse(line) as JSONRPCMessage);
        real.stdin.write(chunk, callback);
      },
      final(callback) {
        real.stdin.end();
        callback();
      },
    });
    sessions.push({
      containerId,
      inject: (message) => void stdout.write(`${JSON.stringify(message)}\n`),
      sent,
      answerTo: (id) =>
        sent.find((message) => (message as { id?: unknown }).id === id && ("result" in message || "error" in message)),
    });
    return { stdin, stdout, stderr: real.stderr, exited: real.exited, close: () => real.close() };
  };
  return {
    driver: inner,
    sessions,
    latest(containerId) {
      const found = sessions.filter((session) => session.containerId === containerId).at(-1);
      if (found === undefined) throw new Error(`no MCP session was opened on container ${containerId}`);
      return found;
    },
  };
}
