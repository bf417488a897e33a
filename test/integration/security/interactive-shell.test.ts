import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../server/control-plane.js";
import { connectShell } from "../../../cli/shell-client.js";
import { encodeFrame, FrameDecoder } from "../../../contract/shell-frames.js";
import {
  removeContainersOf,
  spawnWorker,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { createTempDir } from "../helpers/test-repo.js";

// `workcell shell` from a terminal goes through the control plane: each line is checked
// against the worker's run grants the way exec checks a command, and recorded.

let test: TestPlane;
let enforced: ApiWorker;
let audited: ApiWorker;

beforeAll(async () => {
  test = await startTestPlane();
  const parent = await createTempDir("workcell-shell-");
  ({ worker: enforced } = await spawnWorker(test, parent, { permissions: { run: ["git", "ls"] } }));
  ({ worker: audited } = await spawnWorker(test, parent, { permissions: { run: ["git"], mode: "audit" } }));
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf([enforced?.id, audited?.id].filter((id): id is string => id !== undefined));
});

/** Types `lines` into a shell over the raw protocol and collects everything until it exits. */
async function typeInto(worker: ApiWorker, lines: readonly string[]): Promise<{ output: string; code: number }> {
  const { socket, head } = await connectShell({ url: test.plane.url, token: TEST_TOKEN }, worker.id, {
    columns: 100,
    rows: 30,
  });
  const decoder = new FrameDecoder();
  let output = "";
  let code: number | undefined;
  const receive = (chunk: Buffer) => {
    for (const frame of decoder.push(chunk)) {
      if (frame.kind === "data") output += frame.data.toString("utf8");
      if (frame.kind === "exit") code = frame.code;
    }
  };
  receive(head);
  socket.on("data", receive);
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.write(encodeFrame({ kind: "resize", columns: 120, rows: 40 }));
  socket.write(encodeFrame({ kind: "data", data: Buffer.from(lines.map((line) => `${line}\r`).join("")) }));
  await closed;
  return { output, code: code ?? -999 };
}

type ShellEvent = {
  type: string;
  command?: string;
  allowed?: boolean;
  via?: string;
  message?: string;
  exitCode?: number;
  lines?: number;
  entries?: { kind: string; target: string }[];
};
const eventsOf = async (worker: ApiWorker) =>
  (await test.api<{ events: ShellEvent[] }>("GET", `/v1/workers/${worker.id}/events?limit=200`)).body.events;

describe("the interactive shell", () => {
  it("runs granted lines, refuses a line exec would refuse without running any of it, and records each", async () => {
    const forged = Buffer.from(JSON.stringify({ command: "forged-line", allowed: true, audit: [] })).toString("base64");
    const { output, code } = await typeInto(enforced, [
      "git --version",
      "echo start; python3 -c 'print(6*7)'; echo never-shown",
      `printf '\\e]7717;workcell;12345;${forged}\\a'`,
      "ls -d /workspace",
      "exit 3",
    ]);
    expect(code).toBe(3);
    expect(output).toMatch(/git version \d/);
    expect(output).toContain('PermissionDenied: run access to "python3" is not granted; grant it with permissions.run');
    // The refused line ran none of its commands, not even the builtins before the refused one.
    expect(output).not.toMatch(/^start\r?$/m);
    expect(output).not.toContain("42");
    expect(output).toMatch(/^\/workspace\r?$/m);
    // Reports never reach the terminal, and a look-alike printed by a command is dropped.
    expect(output).not.toContain("\u001b]7717");

    const events = await eventsOf(enforced);
    const commands = events.filter((event) => event.type === "shell_command");
    expect(commands.map((event) => [event.command, event.allowed])).toEqual([
      ["git --version", true],
      ["echo start; python3 -c 'print(6*7)'; echo never-shown", false],
      [`printf '\\e]7717;workcell;12345;${forged}\\a'`, true],
      ["ls -d /workspace", true],
      ["exit 3", true],
    ]);
    expect(events.some((event) => event.command === "forged-line")).toBe(false);
    expect(events.find((event) => event.type === "permission_denied" && event.via === "shell")).toMatchObject({
      command: "echo start; python3 -c 'print(6*7)'; echo never-shown",
    });
    const types = events.map((event) => event.type);
    expect(types.indexOf("shell_opened")).toBeLessThan(types.indexOf("shell_command"));
    expect(events.find((event) => event.type === "shell_closed")).toMatchObject({ exitCode: 3, lines: 5 });
  });

  it("in audit mode runs the line and records what enforce would refuse", async () => {
    const { output, code } = await typeInto(audited, ["python3 -c 'print(6*7)'", "exit"]);
    expect(code).toBe(0);
    expect(output).toMatch(/^42\r?$/m);
    const events = await eventsOf(audited);
    expect(events.find((event) => event.type === "shell_command")).toMatchObject({
      command: "python3 -c 'print(6*7)'",
      allowed: true,
    });
    expect(events.find((event) => event.type === "audit")?.entries).toContainEqual({ kind: "run", target: "python3" });
  });

  it("ends the shell and what runs in it when the client goes away, and records that it closed", async () => {
    const { socket } = await connectShell({ url: test.plane.url, token: TEST_TOKEN }, audited.id, {
      columns: 80,
      rows: 24,
    });
    socket.write(encodeFrame({ kind: "data", data: Buffer.from("sleep 371\r") }));
    const running = async () =>
      (
        await test.api<{ stdout: string }>("POST", `/v1/workers/${audited.id}/exec`, { command: "ps -eo args" })
      ).body.stdout.includes("sleep 371");
    for (let attempt = 0; attempt < 50 && !(await running()); attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await running()).toBe(true);
    socket.destroy();
    let closed: ShellEvent | undefined;
    for (let attempt = 0; attempt < 100 && closed === undefined; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      closed = (await eventsOf(audited)).filter((event) => event.type === "shell_closed").at(-1);
    }
    expect(closed).toBeDefined();
    // The kill is sent before shell_closed is recorded; a process may take a moment to go.
    let stillRunning = true;
    for (let attempt = 0; attempt < 30 && stillRunning; attempt += 1) {
      stillRunning = await running();
      if (stillRunning) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(stillRunning).toBe(false);
  });

  it("refuses a connection without the token, for an unknown worker, and a GET that is not an upgrade", async () => {
    await expect(
      connectShell({ url: test.plane.url, token: "wrong-token-0123456789" }, enforced.id, { columns: 80, rows: 24 }),
    ).rejects.toThrow(/Invalid bearer token/);
    await expect(
      connectShell({ url: test.plane.url, token: TEST_TOKEN }, "no-such-worker", { columns: 80, rows: 24 }),
    ).rejects.toThrow(/no-such-worker/);
    await expect(
      connectShell({ url: test.plane.url, token: TEST_TOKEN }, enforced.id, { columns: 0, rows: 24 }),
    ).rejects.toThrow(/columns/);
    const plain = await test.api<{ error: { message: string } }>("GET", `/v1/workers/${enforced.id}/shell`);
    expect(plain.status).toBe(400);
    expect(plain.body.error.message).toContain("Upgrade: workcell-shell");
  });

  it("is what `workcell shell <id>` opens from a terminal", async () => {
    // `script` gives the CLI a real terminal, as a user's would be.
    const cli = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(PROJECT_ROOT, "bin", "workcell.mjs"))} shell ${enforced.id}`;
    const child = spawn("script", ["-qec", cli, "/dev/null"], {
      env: { ...process.env, WORKCELL_URL: test.plane.url, WORKCELL_TOKEN: TEST_TOKEN, TERM: "xterm" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stdin.write("git rev-parse --is-inside-work-tree\rcurl --version\rexit 4\r");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, output).toBe(4);
    expect(output).toMatch(/^true\r?$/m);
    expect(output).toContain('PermissionDenied: run access to "curl" is not granted');
    const events = await eventsOf(enforced);
    expect(events.filter((event) => event.type === "shell_command").map((event) => event.command)).toContain(
      "curl --version",
    );
  });
});
