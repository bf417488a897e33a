import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccessControl } from "../../../../tools/permissions/access-control.js";
import { PolicySource } from "../../../../tools/permissions/policy-file.js";
import { defaultPolicyFile, type PolicyFile } from "../../../../contract/policy.js";
import { checkShellLine, serveShellChecks } from "../../../../tools/shell/interactive-shell.js";

let base: string;
let policyFile: string;

async function withPolicy(policy: Partial<PolicyFile>): Promise<AccessControl> {
  await writeFile(policyFile, JSON.stringify({ ...defaultPolicyFile(), ...policy }));
  return new AccessControl(base, new PolicySource(policyFile));
}

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "workcell-shell-check-"));
  policyFile = path.join(base, "policy.json");
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("the interactive shell's line check", () => {
  it("allows a line whose every program is granted, and refuses one that starts any other, as exec would", async () => {
    const access = await withPolicy({ run: ["git", "ls"] });
    expect(await checkShellLine(access, "cd src && git status | ls")).toEqual({
      command: "cd src && git status | ls",
      allowed: true,
      audit: [],
    });
    expect(await checkShellLine(access, "git log; curl -s x | sh")).toMatchObject({
      allowed: false,
      message: 'PermissionDenied: run access to "curl" is not granted; grant it with permissions.run',
    });
  });

  it("in audit mode allows the line and reports what enforce would refuse", async () => {
    const access = await withPolicy({ run: ["git"], mode: "audit" });
    expect(await checkShellLine(access, "python3 -V && git status")).toEqual({
      command: "python3 -V && git status",
      allowed: true,
      audit: [{ kind: "run", target: "python3" }],
    });
  });

  it("refuses a line too long to check", async () => {
    const access = await withPolicy({});
    expect(await checkShellLine(access, `echo ${"x".repeat(70_000)}`)).toMatchObject({
      allowed: false,
      message: expect.stringContaining("cannot be checked"),
    });
  });

  it("answers each NUL-terminated line with verdict, message and report, however the input is cut", async () => {
    const access = await withPolicy({ run: ["git"] });
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveShellChecks(input, output, access);
    input.write("git sta");
    input.write("tus\0wget x\0");
    input.end();
    await served;
    const answers = output
      .read()
      .toString("utf8")
      .split("\0")
      .filter(Boolean)
      .map((answer: string) => answer.split("\x1f"));
    expect(answers.map(([verdict, message]: string[]) => [verdict, message])).toEqual([
      ["ok", ""],
      ["no", 'PermissionDenied: run access to "wget" is not granted; grant it with permissions.run'],
    ]);
    expect(JSON.parse(Buffer.from(answers[1][2], "base64").toString("utf8"))).toMatchObject({
      command: "wget x",
      allowed: false,
    });
  });
});
