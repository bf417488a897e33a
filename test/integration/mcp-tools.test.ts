import { readFile, symlink } from "node:fs/promises";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnWorker,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, git } from "./helpers/test-repo.js";

let test: TestPlane;
let repo: string;
let worker: ApiWorker;
let client: Client;
let transport: StreamableHTTPClientTransport;

beforeAll(async () => {
  test = await startTestPlane();
  ({ repo, worker } = await spawnWorker(test, await createTempDir("workcell-mcp-")));
  ({ client, transport } = await test.connect(worker.mcpUrl));
});

afterAll(async () => {
  await client?.close();
  await stopTestPlane(test);
  await removeContainersOf([worker.id]);
});

const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });
const shell = async (command: string) =>
  (await call("shell", { command })).structuredContent as {
    exitCode: number;
    stdout: string;
    stderr: string;
    timedOut: boolean;
  };
const mcpProcesses = async () =>
  Number(
    (
      await shell("ps -eo args | grep -cE '^node --snapshot-blob /opt/workcell/workcell-tools.blob mcp' || true")
    ).stdout.trim(),
  );

describe("the worker's MCP endpoint, through the official SDK client", () => {
  it("lists the core tools with descriptions and input schemas", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of [
      "read_file",
      "write_file",
      "edit_file",
      "list_directory",
      "glob",
      "grep",
      "shell",
      "git_status",
      "git_diff",
      "git_add",
      "git_commit",
      "git_log",
    ]) {
      expect(names).toContain(name);
    }
    const edit = tools.find((tool) => tool.name === "edit_file");
    expect(edit?.description).toBeTruthy();
    expect(Object.keys(edit?.inputSchema.properties ?? {})).toEqual(["path", "edits", "dryRun"]);
  });

  it("writes, edits and reads files inside the container's workspace", async () => {
    expect(
      (
        await call("write_file", {
          path: "src/util/strings.ts",
          content: "export const shout = (s: string) => s.toUpperCase();\n",
        })
      ).isError,
    ).toBeFalsy();
    const preview = await call("edit_file", {
      path: "src/util/strings.ts",
      edits: [{ oldText: "toUpperCase()", newText: "toUpperCase() + '!'" }],
      dryRun: true,
    });
    expect(textOf(preview)).toContain("+export const shout = (s: string) => s.toUpperCase() + '!';");
    expect(textOf(await call("read_file", { path: "src/util/strings.ts" }))).not.toContain("'!'");
    await call("edit_file", {
      path: "src/util/strings.ts",
      edits: [{ oldText: "toUpperCase()", newText: "toUpperCase() + '!'" }],
    });
    expect(textOf(await call("read_file", { path: "/workspace/src/util/strings.ts" }))).toBe(
      "export const shout = (s: string) => s.toUpperCase() + '!';\n",
    );
    // The file is on the host's workspace, written by the container's user.
    expect(await readFile(path.join(worker.workspace, "src/util/strings.ts"), "utf8")).toContain("'!'");
    expect(textOf(await call("read_file", { path: "src/math.ts", offset: 2, limit: 1 }))).toBe(
      "  return a + b;\n[lines 2-2 of 3]",
    );
  });

  it("reports a failed edit as a tool error and changes nothing", async () => {
    const result = await call("edit_file", {
      path: "src/math.ts",
      edits: [
        { oldText: "a + b", newText: "a - b" },
        { oldText: "missing", newText: "" },
      ],
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Edit 2: oldText was not found/);
    expect(textOf(await call("read_file", { path: "src/math.ts" }))).toContain("a + b");
  });

  it("lists directories, globs and greps", async () => {
    expect(textOf(await call("list_directory", { path: "src" }))).toBe("[FILE] greet.ts\n[FILE] math.ts\n[DIR] util");
    expect(textOf(await call("glob", { pattern: "**/*.ts" }))).toBe("src/greet.ts\nsrc/math.ts\nsrc/util/strings.ts");
    expect(textOf(await call("grep", { pattern: "export (const|function)", glob: "*.ts" }))).toMatch(
      /^src\/greet\.ts:1:export const greeting = 'hello';$/m,
    );
    expect(textOf(await call("grep", { pattern: "RETURN", ignoreCase: true, path: "src", contextLines: 1 }))).toBe(
      "src/math.ts-1-export function add(a: number, b: number): number {\nsrc/math.ts:2:  return a + b;\nsrc/math.ts-3-}",
    );
    expect(textOf(await call("grep", { pattern: "zzz-nothing" }))).toMatch(/No matches/);
  });

  it("runs shell commands inside the container, with structured results", async () => {
    const result = await call("shell", { command: "id -u; hostname; echo oops >&2; exit 4" });
    const structured = result.structuredContent as {
      exitCode: number;
      stdout: string;
      stderr: string;
      timedOut: boolean;
    };
    expect(structured.exitCode).toBe(4);
    expect(structured.stdout.split("\n")[0]).not.toBe("0");
    expect(structured.stderr).toBe("oops\n");
    expect(structured.timedOut).toBe(false);
  });

  it("times out a shell command and caps its output at 10,000 characters", async () => {
    const slow = (await call("shell", { command: "sleep 30", timeoutMs: 300 })).structuredContent as {
      timedOut: boolean;
      exitCode: number | null;
    };
    expect(slow).toMatchObject({ timedOut: true, exitCode: null });
    const loud = (await call("shell", { command: "seq 1 100000" })).structuredContent as {
      stdout: string;
      truncated: boolean;
    };
    expect(loud.truncated).toBe(true);
    expect(loud.stdout).toMatch(/output truncated: \d+ characters omitted/);
    expect(loud.stdout.length).toBeLessThan(10_100);
    expect(loud.stdout.startsWith("1\n2\n")).toBe(true);
    expect(loud.stdout.endsWith("99999\n100000\n")).toBe(true);
  });

  it("confines file tools to the workspace", async () => {
    await symlink("/", path.join(worker.workspace, "root-link"));
    await symlink("/etc", path.join(worker.workspace, "etc-link"));
    const attempts: [string, Record<string, unknown>][] = [
      ["read_file", { path: "../etc/passwd" }],
      ["read_file", { path: "/etc/passwd" }],
      ["read_file", { path: "/workspace-evil/x" }],
      ["read_file", { path: "root-link/etc/passwd" }],
      ["write_file", { path: "etc-link/evil.conf", content: "x" }],
      ["list_directory", { path: "root-link" }],
      ["edit_file", { path: "../../etc/hosts", edits: [{ oldText: "a", newText: "b" }] }],
      ["grep", { pattern: "root", path: "/etc" }],
      ["glob", { pattern: "*", path: "root-link" }],
    ];
    for (const [name, args] of attempts) {
      const result = await call(name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result)).toMatch(/refused|PermissionDenied: (read|write) access to/);
    }
  });

  it("stages and commits with git, answering the new commit's sha", async () => {
    expect(textOf(await call("git_status"))).toMatch(/\?\? src\/util\//);
    expect(textOf(await call("git_diff", {}))).toBe("(no changes)");
    await call("git_add", { files: ["src/util/strings.ts"] });
    expect(textOf(await call("git_diff", { staged: true }))).toContain("+export const shout");
    const commit = await call("git_commit", { message: "Add shout helper" });
    const sha = (commit.structuredContent as { sha: string }).sha;
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(textOf(await call("git_log", { maxCount: 1 }))).toContain(`${sha} workcell agent`);
    expect((await call("git_commit", { message: "again" })).isError).toBe(true);
  });

  it("exports the branch into the source repository, where plain git sees the commit", async () => {
    const head = (await shell("git rev-parse HEAD")).stdout.trim();
    const exported = await test.api<{ repo: string; branch: string; commit: string }>(
      "POST",
      `/v1/workers/${worker.id}/export`,
    );
    expect(exported.status).toBe(200);
    expect(exported.body).toMatchObject({ repo, branch: worker.branch, commit: head });
    expect(git(repo, "rev-parse", `refs/heads/${worker.branch}`)).toBe(head);
    expect(git(repo, "log", "-1", "--format=%s", worker.branch)).toBe("Add shout helper");
    expect(git(repo, "show", `${worker.branch}:src/util/strings.ts`)).toContain("toUpperCase() + '!'");
    // Exporting again after another commit moves the branch forward.
    await call("write_file", { path: "NOTES.md", content: "notes\n" });
    await call("git_add", { files: ["NOTES.md"] });
    const next = (await call("git_commit", { message: "notes" })).structuredContent as { sha: string };
    const again = await test.api<{ commit: string }>("POST", `/v1/workers/${worker.id}/export`, {});
    expect(again.body.commit).toBe(next.sha);
    expect(git(repo, "rev-parse", `refs/heads/${worker.branch}`)).toBe(next.sha);
  });

  it("exports under another branch name, and refuses to clobber a branch it did not create", async () => {
    const named = await test.api<{ branch: string }>("POST", `/v1/workers/${worker.id}/export`, {
      branch: "feature/shout",
    });
    expect(named.status).toBe(200);
    expect(git(repo, "rev-parse", "feature/shout")).toBe(git(repo, "rev-parse", worker.branch));
    const clobber = await test.api<{ error: { code: string; message: string } }>(
      "POST",
      `/v1/workers/${worker.id}/export`,
      { branch: "main" },
    );
    expect(clobber.status).toBe(409);
    expect(clobber.body.error.message).toMatch(/^Branch main is checked out in /);
    const invalid = await test.api("POST", `/v1/workers/${worker.id}/export`, { branch: "bad..name" });
    expect(invalid.status).toBe(400);
    expect(git(repo, "log", "-1", "--format=%s", "main")).toBe("initial");
  });

  it("carries a 5 MB single-line message both ways", async () => {
    const content = `${"x".repeat(5 * 1024 * 1024)}\n`;
    expect((await call("write_file", { path: "big.txt", content })).isError).toBeFalsy();
    expect(textOf(await call("read_file", { path: "big.txt" }))).toBe(content);
  });

  it("delivers progress notifications for a long shell command to its caller", async () => {
    const seen: number[] = [];
    const result = await client.callTool({ name: "shell", arguments: { command: "sleep 2.5; echo ok" } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect((result.structuredContent as { stdout: string }).stdout).toBe("ok\n");
    expect(seen.length).toBeGreaterThanOrEqual(2);
  });

  it("forwards cancellation: the command's processes are killed", async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: "shell", arguments: { command: "sleep 7777" } }, undefined, {
      signal: controller.signal,
    });
    await expect.poll(async () => (await shell("ps -eo args | grep -c '^sleep 7777' || true")).stdout.trim()).toBe("1");
    controller.abort();
    await expect(pending).rejects.toThrow();
    await expect
      .poll(async () => (await shell("ps -eo args | grep -c '^sleep 7777' || true")).stdout.trim(), { timeout: 5_000 })
      .toBe("0");
  });

  it("answers 404 to an unknown session id and 401 without the token", async () => {
    const unknown = await fetch(worker.mcpUrl, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TEST_TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": "no-such-session",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(unknown.status).toBe(404);
    const anonymous = await fetch(worker.mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(anonymous.status).toBe(401);
  });

  it("runs one in-container server per session, and DELETE ends it", async () => {
    const before = await mcpProcesses();
    const second = await test.connect(worker.mcpUrl);
    expect(await mcpProcesses()).toBe(before + 1);
    await second.transport.terminateSession();
    await second.client.close();
    await expect.poll(mcpProcesses, { timeout: 5_000 }).toBe(before);
    expect(transport.sessionId).toBeTruthy();
  });
});
