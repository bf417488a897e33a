import { utimesSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPolicyFile, lockedDownPolicyFile, toPolicyFile } from "../../../contract/policy.js";
import { approvalDefaults } from "../../../runtime/approvals/approval.js";
import { normalizePolicy } from "../../../runtime/permissions/policy.js";
import { writePolicyFile } from "../../../runtime/workers/worker-policy.js";
import { POLICY_FILE_NAME } from "../../../contract/container.js";
import { PolicySource } from "../../../tools/permissions/policy-file.js";

let base: string;
let counter = 0;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "workcell-policy-file-"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A policy file holding `text`, read as the tools read it. */
async function readBack(text: string) {
  const file = path.join(base, `policy-${counter++}.json`);
  await writeFile(file, text);
  return new PolicySource(file).current();
}

describe("the policy file between the control plane and the tools", () => {
  it("reads back exactly what the control plane writes", async () => {
    const policy = normalizePolicy(
      {
        read: ["/srv/data"],
        net: ["*.example.com:443"],
        run: ["git", "npm"],
        env: ["CI"],
        deny: { net: ["evil.example.com"] },
        prompt: true,
        mode: "audit",
      },
      { dataDir: "/var/lib/workcell" },
    );
    const approvals = { ...approvalDefaults(), tools: ["shell"], dangerousGit: false };
    const runDir = path.join(base, "run");
    await writePolicyFile(runDir, policy, approvals);
    expect(new PolicySource(path.join(runDir, POLICY_FILE_NAME)).current()).toEqual(toPolicyFile(policy, approvals));
  });

  it("means the default policy when there is no file", () => {
    expect(new PolicySource(path.join(base, "absent.json")).current()).toEqual(defaultPolicyFile());
    expect(defaultPolicyFile().run).toBe(true);
  });

  it("locks down to the workspace when the file is not JSON, lacks a field, or has one of the wrong type, whatever it asked for", async () => {
    const wide = { ...defaultPolicyFile(), net: true, run: true, env: true, mode: "audit" };
    const { run: _run, ...withoutRun } = wide;
    const { deny: _deny, ...withoutDeny } = wide;
    const malformed = [
      "{ not json",
      "{}",
      "null",
      JSON.stringify(withoutRun),
      JSON.stringify(withoutDeny),
      JSON.stringify({ ...wide, run: "yes" }),
      JSON.stringify({ ...wide, mode: "permissive" }),
    ];
    for (const text of malformed) {
      const policy = await readBack(text);
      expect([text, policy]).toEqual([text, lockedDownPolicyFile()]);
      expect(policy).toMatchObject({ run: [], net: false, env: [], mode: "enforce", prompt: false });
    }
  });

  it("fills in only the approval settings, which files written before them lack", async () => {
    const { approvals: _approvals, ...withoutApprovals } = { ...defaultPolicyFile(), run: ["git"] };
    expect(await readBack(JSON.stringify(withoutApprovals))).toEqual({ ...defaultPolicyFile(), run: ["git"] });
  });

  it("looks at the file once per turn of the event loop, and sees a change from the next turn on", async () => {
    const file = path.join(base, `policy-${counter++}.json`);
    const written = (run: true | string[]) =>
      toPolicyFile(normalizePolicy({ run }, { dataDir: "/d" }), approvalDefaults());
    await writeFile(file, JSON.stringify(written(["git"])));
    const source = new PolicySource(file);
    const first = source.current();
    expect(first.run).toEqual(["git"]);
    // Changed within the same turn: a call already under way keeps the policy it started with.
    writeFileSync(file, JSON.stringify(written(true)));
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(source.current()).toBe(first);
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.current().run).toBe(true);
  });
});
