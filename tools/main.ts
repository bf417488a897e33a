import { startupSnapshot } from "node:v8";
import { warmUp } from "./warm-up.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { diffSinceBase } from "./commands/diff-command.js";
import { forwardToProxy } from "./commands/forward-command.js";
import { runCommand } from "./commands/run-command.js";
import { serveChannel } from "./commands/serve-command.js";
import { parseGate } from "./gate/finish-gate.js";
import { assumeSandboxUser } from "./identity/sandbox-user.js";
import { pinRoot } from "./fs/pinned-roots.js";
import { AccessControl } from "./permissions/access-control.js";
import { PolicySource } from "./permissions/policy-file.js";
import { createToolServer } from "./server.js";
import { killMarkedProcesses } from "./shell/call-marker.js";
import { interactiveShellRc, serveShellChecks } from "./shell/interactive-shell.js";
import { connect } from "node:net";
import type { Readable, Writable } from "node:stream";
import {
  CONTAINER_RUN_DIR,
  CONTAINER_WORKSPACE,
  GATE_VAR,
  MCP_PREFLIGHT_ID,
  MCP_SOCKET_ARG,
  MCP_SOCKET_NAME,
} from "../contract/container.js";
import { CONTROL_MODES, type ControlMode } from "../contract/control.js";

// The in-container program. stdout is the MCP channel (or one JSON answer), so nothing
// else may write to it.
// Matches the bridge: a 32 MB HTTP body can never be cut here.
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The workspace, read when the program runs: a startup snapshot is built with another environment. */
function workspaceRoot(): string {
  return process.env.WORKCELL_WORKSPACE ?? CONTAINER_WORKSPACE;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function answer(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** The first line of `input` (the session token), without its newline. */
function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const end = text.indexOf("\n");
      if (end !== -1) {
        input.off("data", onData);
        resolve(text.slice(0, end));
      } else if (text.length > 256) reject(new Error("expected a session token line on stdin"));
    };
    input.on("data", onData);
    input.once("end", () => reject(new Error("stdin ended before the session token")));
  });
}

/**
 * The session's channel: stdio, or (`--socket <name>`) a connection to the socket the control
 * plane opened in the control directory for this session, introduced by the token it wrote
 * on stdin. The socket skips the engine's exec stream; the control plane asks for it under
 * runc (see runtime/workers/mcp-servers.ts).
 */
async function sessionChannel(rest: readonly string[]): Promise<{ input: Readable; output: Writable }> {
  if (rest[0] !== MCP_SOCKET_ARG) return { input: process.stdin, output: process.stdout };
  const name = rest[1] ?? "";
  if (!MCP_SOCKET_NAME.test(name))
    throw new Error(`mcp ${MCP_SOCKET_ARG}: expected a socket name like mcp-<16 hex>.sock`);
  const token = await firstLine(process.stdin);
  const socket = connect(`${CONTAINER_RUN_DIR}/${name}`);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.setNoDelay(true);
  socket.write(`${token}\n`);
  // The control plane ends the session by closing the connection.
  socket.on("close", () => process.exit(0));
  process.stdin.resume();
  return { input: socket, output: socket };
}

async function serveMcp(root: string, rest: readonly string[]): Promise<void> {
  process.stderr.write(`workcell-tools pid=${process.pid}\n`);
  try {
    pinRoot(root);
  } catch {
    // No workspace to keep open (yet): each call opens it, as before.
  }
  // Read now, while the server waits for its session, not on the session's first call.
  const policy = new PolicySource();
  policy.current();
  const { server } = createToolServer({ root, gate: parseGate(process.env[GATE_VAR]), policy });
  // The bridge ends a session by closing stdin: exit then, whatever is in flight.
  process.stdin.on("end", () => process.exit(0));
  process.stdin.on("close", () => process.exit(0));
  const { input, output } = await sessionChannel(rest);
  const transport = new StdioServerTransport(input, output, { maxBufferSize: MAX_MESSAGE_BYTES });
  // The warm-up is for a server waiting for its session (a standby): once the session's
  // first message has come, it would only delay the answers, so it stops or never starts.
  // (The control plane's preflight ping over a session socket is not the session's start.)
  let sessionStarted = false;
  const onFirstData = (chunk: Buffer) => {
    if (chunk.includes(MCP_PREFLIGHT_ID) && chunk.indexOf(0x0a) === chunk.length - 1) return;
    sessionStarted = true;
    input.off("data", onFirstData);
  };
  input.on("data", onFirstData);
  await server.connect(transport);
  setImmediate(() => {
    if (!sessionStarted) void warmUp(undefined, () => sessionStarted).catch(() => undefined);
  });
}

/** The answer of a control-plane mode that takes its input whole and answers one JSON value. */
async function controlMode(name: string, args: readonly string[], input: string): Promise<unknown> {
  const root = workspaceRoot();
  switch (name) {
    case "run" satisfies ControlMode:
      return runCommand(root, input);
    case "diff" satisfies ControlMode: {
      const base = args[0];
      if (base === undefined || !/^[0-9a-f]{40,64}$/.test(base)) return { error: "usage: diff <baseCommit sha>" };
      return diffSinceBase(root, base);
    }
    case "kill-marked" satisfies ControlMode: {
      // After an interactive shell: ends whatever it left running (see call-marker.ts).
      const marker = args[0];
      if (marker === undefined || !/^[0-9a-f]{24}$/.test(marker))
        return { error: "usage: kill-marked <24 hex digits>" };
      return { killed: killMarkedProcesses(marker) };
    }
    default:
      return { error: `unknown control mode "${name}"; expected ${CONTROL_MODES.join(", ")}` };
  }
}

async function main(mode: string, rest: readonly string[]): Promise<void> {
  const root = workspaceRoot();
  // Before anything touches the workspace: read and write as the sandbox user from here on.
  assumeSandboxUser(process.env);
  try {
    process.chdir(root);
  } catch {
    // Started from `/` (the control plane's choice, since the workspace may be closed to root); paths are absolute anyway.
  }
  switch (mode) {
    case "mcp":
      return serveMcp(root, rest);
    case "run" satisfies ControlMode:
    case "diff" satisfies ControlMode:
    case "kill-marked" satisfies ControlMode:
      return answer(await controlMode(mode, rest, await readStdin()));
    case "serve":
      // The control channel: the same modes, many requests, one process (see serve-command.ts).
      return serveChannel(process.stdin, process.stdout, controlMode, MAX_MESSAGE_BYTES);
    case "forward":
      return forwardToProxy();
    case "call": {
      // One tool call for the control plane (orchestrator inspection, quality checks): args on stdin, the result as one JSON line.
      const tool = rest[0] ?? "";
      const { registry } = createToolServer({ root, gate: parseGate(process.env[GATE_VAR]) });
      const args = JSON.parse((await readStdin()) || "{}") as unknown;
      return answer(
        await registry.call(tool, args, {
          signal: new AbortController().signal,
          sendNotification: async () => undefined,
        }),
      );
    }
    case "shell-rc":
      // The interactive shell's startup file (bash reads it from a process substitution).
      process.stdout.write(interactiveShellRc(process.argv[1] ?? ""));
      return;
    case "shell-check":
      // Beside an interactive shell, as its user: checks each line it is handed.
      return serveShellChecks(process.stdin, process.stdout, new AccessControl(root));
    default:
      answer({
        error: `unknown mode "${mode}"; expected mcp, run, diff, kill-marked, serve, forward, call, shell-rc or shell-check`,
      });
      process.exitCode = 2;
  }
}

/** Runs the mode `argv` names (its first element; the MCP server when there is none). */
function run(argv: readonly string[]): void {
  const [mode = "mcp", ...rest] = argv;
  main(mode, rest).catch((error: unknown) => {
    process.stderr.write(`workcell-tools: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}

// The sandbox image keeps a startup snapshot of this program (see Dockerfile.sandbox): every
// module is loaded and evaluated once, at build time, and a process started from it begins
// here with no script in its argv. Run as a plain script, it starts at once.
if (startupSnapshot.isBuildingSnapshot()) startupSnapshot.setDeserializeMainFunction(() => run(process.argv.slice(1)));
else run(process.argv.slice(2));
