import { execFileSync } from "node:child_process";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiffResultSchema, RunResultSchema, type RunRequest } from "../../../contract/control.js";
import { defaultPolicyFile } from "../../../contract/policy.js";
import { diffSinceBase } from "../../../tools/commands/diff-command.js";
import { runCommand } from "../../../tools/commands/run-command.js";
import { AccessControl } from "../../../tools/permissions/access-control.js";
import { PolicySource } from "../../../tools/permissions/policy-file.js";

let root: string;
let access: AccessControl;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "workcell-control-")));
  const policyFile = path.join(root, "policy.json");
  await writeFile(policyFile, JSON.stringify({ ...defaultPolicyFile(), mode: "audit", run: ["git"] }));
  access = new AccessControl(root, new PolicySource(policyFile));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: root });
  git("init", "-q");
  git("add", "policy.json");
  git("commit", "-qm", "base");
  await writeFile(path.join(root, "new.txt"), "one\ntwo\n");
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the run and diff answers the tools build", () => {
  it("fit the shapes the control plane validates them with, field for field", async () => {
    const request: RunRequest = { command: ["git", "rev-parse", "HEAD"], timeoutMs: 10_000, maxOutputBytes: 10_000 };
    const answer = await runCommand(root, JSON.stringify(request), access);
    expect(RunResultSchema.strict().parse(answer)).toEqual(answer);
    const base = String((answer as { stdout: string }).stdout).trim();
    const diff = await diffSinceBase(root, base);
    expect(DiffResultSchema.strict().parse(diff)).toMatchObject({
      baseCommit: base,
      files: [{ path: "new.txt", status: "added", additions: 2, deletions: 0 }],
    });
  });

  it("carry what audit mode recorded in the container beside the result", async () => {
    const answer = RunResultSchema.parse(
      await runCommand(
        root,
        JSON.stringify({ command: "cat /dev/null && printf x", timeoutMs: 10_000, maxOutputBytes: 10_000 }),
        access,
      ),
    );
    expect(answer).toMatchObject({ exitCode: 0, stdout: "x", audit: [{ kind: "run", target: "cat" }] });
  });
});
