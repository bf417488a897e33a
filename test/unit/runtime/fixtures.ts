import { defaultPolicy } from "../../../runtime/permissions/policy.js";
import type { Worker } from "../../../runtime/workers/worker.js";

/** A plausible stored worker for tests that need one. */
export function sampleWorker(overrides: Partial<Worker> = {}): Worker {
  return {
    id: "0a1b2c3d",
    name: "agent-0a1b2c3d",
    status: "running",
    repo: "/src/repo",
    branch: "workcell/agent-0a1b2c3d",
    baseRef: "HEAD",
    baseCommit: "a".repeat(40),
    workspace: "/data/workers/0a1b2c3d/workspace",
    image: "workcell-sandbox:test",
    permissions: defaultPolicy(),
    approvals: { tools: [], dangerousGit: true, timeoutMs: 600_000, onTimeout: "reject" },
    audit: [],
    resources: { cpus: 1, memoryMb: 512, pids: 128, tmpMb: 64, diskMb: 1024 },
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    containerId: "c".repeat(64),
    desired: "running",
    env: {},
    objectDirs: ["/src/repo/.git/objects"],
    ...overrides,
  };
}
