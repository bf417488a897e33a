import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { approvalDefaults } from "../../../../runtime/approvals/approval.js";
import { defaultPolicy } from "../../../../runtime/permissions/policy.js";
import { writePolicyFile } from "../../../../runtime/workers/worker-policy.js";
import { POLICY_FILE_NAME } from "../../../../contract/container.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("writePolicyFile", () => {
  it("leaves a policy file that already says the same alone, so the tools' copy of it stays current", async () => {
    const runDir = path.join(await mkdtemp(path.join(tmpdir(), "policy-file-")), "run");
    dirs.push(path.dirname(runDir));
    const file = path.join(runDir, POLICY_FILE_NAME);
    await writePolicyFile(runDir, defaultPolicy(), approvalDefaults());
    const written = await stat(file);
    await writePolicyFile(runDir, defaultPolicy(), approvalDefaults());
    const again = await stat(file);
    expect([again.ino, again.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
    // A different policy replaces the file (a new inode: written beside it and renamed over it).
    await writePolicyFile(runDir, { ...defaultPolicy(), net: true }, approvalDefaults());
    expect((await stat(file)).ino).not.toBe(written.ino);
  });
});
