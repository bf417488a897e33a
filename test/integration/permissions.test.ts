import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf, type TestPlane } from "./helpers/control-plane.js";
import { startPolicyPlane, stopPolicyPlane, type PolicyPlane } from "./helpers/policy-plane.js";

// File, run and env grants and the policy's validation; permissions-network.test.ts covers
// network grants and audit mode.
let plane: PolicyPlane | undefined;
let test: TestPlane;
let scratch: string;
let repo: string;
let spawn: PolicyPlane["spawn"];
let exec: PolicyPlane["exec"];

beforeAll(async () => {
  plane = await startPolicyPlane("workcell-permissions-");
  ({ test, scratch, repo, spawn, exec } = plane);
});

afterAll(async () => {
  await stopPolicyPlane(plane);
});

describe("file grants", () => {
  it("a read grant is readable and not writable, an ungranted path is absent, and a deny inside the grant holds", async () => {
    const data = path.join(scratch, "shared-data");
    await mkdir(path.join(data, "secret"), { recursive: true });
    await writeFile(path.join(data, "notes.txt"), "shared notes\n");
    await writeFile(path.join(data, "secret", "key.txt"), "do not read\n");
    // World-writable, so only the read-only mount can refuse the write (gVisor checks the
    // mode first and would otherwise answer "Permission denied").
    await chmod(data, 0o777);
    const other = path.join(scratch, "not-granted");
    await mkdir(other, { recursive: true });
    const worker = await spawn({ read: [data], deny: { read: [path.join(data, "secret")] } });
    const { client } = await test.connect(worker.mcpUrl);
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

    expect(textOf(await call("read_file", { path: path.join(data, "notes.txt") }))).toBe("shared notes\n");
    expect((await exec(worker, `cat ${data}/notes.txt`)).body.stdout).toBe("shared notes\n");
    const write = await call("write_file", { path: path.join(data, "new.txt"), content: "x" });
    expect(textOf(write)).toBe(
      `Error: PermissionDenied: write access to "${path.join(data, "new.txt")}" is not granted; grant it with permissions.write`,
    );
    expect((await exec(worker, `touch ${data}/new.txt`)).body.stderr).toMatch(/Read-only file system/);
    expect((await exec(worker, `ls ${other}`)).body.stderr).toMatch(/No such file or directory/);
    expect(textOf(await call("read_file", { path: path.join(other, "x") }))).toMatch(
      /PermissionDenied: read access to/,
    );
    expect(textOf(await call("read_file", { path: path.join(data, "secret", "key.txt") }))).toMatch(
      /PermissionDenied: read access to ".*secret\/key\.txt"/,
    );
    expect((await exec(worker, `cat ${data}/secret/key.txt`)).body.stdout).toBe("");
    await client.close();
  });

  it("a write grant is writable from the tools and the shell, and the host sees the file", async () => {
    const out = path.join(scratch, "out-dir");
    await mkdir(out, { recursive: true });
    // The control plane runs as root here, so the sandbox runs as uid 1000 and needs the
    // host directory to be writable by that uid.
    await chmod(out, 0o777);
    const worker = await spawn({ write: [out] });
    const { client } = await test.connect(worker.mcpUrl);
    const written = await client.callTool({
      name: "write_file",
      arguments: { path: path.join(out, "report.txt"), content: "from the tools" },
    });
    expect(written.isError, textOf(written)).toBeFalsy();
    expect(await readFile(path.join(out, "report.txt"), "utf8")).toBe("from the tools");
    expect((await exec(worker, `echo shell >> ${out}/report.txt`)).body.exitCode).toBe(0);
    expect(await readFile(path.join(out, "report.txt"), "utf8")).toBe("from the toolsshell\n");
    await client.close();
  });
});

describe("run and env grants", () => {
  it("run lists the programs commands may start; deny wins; builtins are always fine", async () => {
    const worker = await spawn({ run: ["git", "ls"], deny: { run: ["rm"] } });
    const { client } = await test.connect(worker.mcpUrl);
    const shell = (command: string) => client.callTool({ name: "shell", arguments: { command } });
    expect((await shell("cd src && git status --short && ls")).isError).toBeFalsy();
    expect(textOf(await shell("python3 -c 'print(1)'"))).toBe(
      'Error: PermissionDenied: run access to "python3" is not granted; grant it with permissions.run',
    );
    expect(textOf(await client.callTool({ name: "start_process", arguments: { command: "sleep 100" } }))).toMatch(
      /run access to "sleep"/,
    );
    const viaExec = await exec(worker, ["python3", "-c", "print(1)"]);
    expect(viaExec.status).toBe(403);
    expect(viaExec.body.error?.code).toBe("permission_denied");
    const query = await client.callTool({ name: "permissions_query", arguments: { kind: "run", target: "git" } });
    expect((query.structuredContent as { state: string }).state).toBe("granted");
    await client.close();

    const denyOnly = await spawn({ deny: { run: ["rm"] } });
    expect((await exec(denyOnly, "rm -f README.md")).body.error?.message).toBe(
      'PermissionDenied: run access to "rm" is not granted; grant it with permissions.run',
    );
  });

  it("env passes only granted names, and a secret value never shows in answers, events or logs", async () => {
    const secret = "s3cr3t-value-4f1b9c";
    const refused = await test.api<{ error: { code: string; message: string } }>("POST", "/v1/workers", {
      repo,
      env: { API_KEY: secret },
    });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain(secret);
    const worker = await spawn({ env: ["API_KEY"] }, { env: { API_KEY: secret } });
    expect((await exec(worker, 'printf %s "$API_KEY"')).body.stdout).toBe(secret);
    const answers = JSON.stringify([
      worker,
      (await test.api("GET", `/v1/workers/${worker.id}`)).body,
      (await test.api("GET", "/v1/workers")).body,
    ]);
    expect(answers).not.toContain(secret);
    expect(answers).toContain("API_KEY");
    const events = await readFile(path.join(test.dataDir, "workers", worker.id, "events.jsonl"), "utf8");
    expect(events).not.toContain(secret);
    expect(test.logs.join("\n")).not.toContain(secret);
  });
});

describe("policy validation", () => {
  it.each([
    [{ read: ["relative/dir"] }, "permissions.read"],
    [{ read: ["/"] }, "permissions.read"],
    [{ write: ["/var/run/docker.sock"] }, "permissions.write"],
    [{ net: ["http://example.com/path"] }, "permissions.net"],
    [{ net: ["exa mple.com"] }, "permissions.net"],
    [{ net: ["example.com:99999"] }, "permissions.net"],
    [{ run: ["git"], deny: { run: ["git"] } }, "permissions.deny.run"],
    [{ colour: "red" }, "permissions"],
  ])("refuses %j with 400 naming %s", async (permissions, field) => {
    const response = await test.api<{ error: { code: string; message: string } }>("POST", "/v1/workers", {
      repo,
      permissions,
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain(field);
  });

  it("refuses the data dir and paths that do not exist", async () => {
    const inside = await test.api<{ error: { message: string } }>("POST", "/v1/workers", {
      repo,
      permissions: { read: [path.join(test.dataDir, "workers")] },
    });
    expect(inside.status).toBe(400);
    expect(inside.body.error.message).toMatch(/data directory/);
    const missing = await test.api<{ error: { message: string } }>("POST", "/v1/workers", {
      repo,
      permissions: { read: [path.join(scratch, "nope")] },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/does not exist/);
  });

  it("answers the effective policy, defaults filled in", async () => {
    const worker = await spawn({});
    const response = await test.api("GET", `/v1/workers/${worker.id}/permissions`);
    expect(response.body).toEqual({
      permissions: {
        read: [],
        write: [],
        net: false,
        run: true,
        env: [],
        deny: { read: [], write: [], net: [], run: [], env: [] },
        prompt: false,
        mode: "enforce",
      },
    });
  });
});
