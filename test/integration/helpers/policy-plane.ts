import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "./control-plane.js";
import { createTempDir, createTestRepo } from "./test-repo.js";

/** What an exec in a worker answered; `error` when the control plane refused it. */
export interface ExecAnswer {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  error?: { code: string; message: string };
}

/** A control plane and one test repository, on which tests spawn workers under the permissions they grant. */
export interface PolicyPlane {
  readonly test: TestPlane;
  /** A temp dir for the tests' own files; the repository is inside it. */
  readonly scratch: string;
  readonly repo: string;
  /** The ids of the workers spawned, so that what they leave can be removed. */
  readonly spawned: readonly string[];
  /** Spawns a worker on the repository with `permissions` (and `extra` request fields). */
  spawn(permissions: Record<string, unknown>, extra?: Record<string, unknown>): Promise<ApiWorker>;
  /** Runs `command` in the worker through the exec API, with a 30 s deadline. */
  exec(worker: ApiWorker, command: string | string[]): Promise<{ status: number; body: ExecAnswer }>;
}

/** Starts a plane and makes the repository in a new temp dir named `tempPrefix…`. */
export async function startPolicyPlane(tempPrefix: string): Promise<PolicyPlane> {
  const test = await startTestPlane();
  const scratch = await createTempDir(tempPrefix);
  const repo = await createTestRepo(scratch);
  const spawned: string[] = [];
  return {
    test,
    scratch,
    repo,
    spawned,
    async spawn(permissions, extra = {}) {
      const worker = await spawnOn(test, repo, { permissions, ...extra });
      spawned.push(worker.id);
      return worker;
    },
    exec: (worker, command) =>
      test.api<ExecAnswer>("POST", `/v1/workers/${worker.id}/exec`, { command, timeoutMs: 30_000 }),
  };
}

/** Stops the plane (removing its workers) and removes any container they left. */
export async function stopPolicyPlane(plane: PolicyPlane | undefined): Promise<void> {
  if (plane === undefined) return;
  try {
    await stopTestPlane(plane.test);
  } finally {
    await removeContainersOf(plane.spawned);
  }
}
