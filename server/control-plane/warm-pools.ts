import type { Config } from "../../runtime/config/config.js";
import { WorkerPool, type PoolDeps } from "../../runtime/workers/worker-pool.js";
import { resolvePoolRepo, WorkerPools } from "../../runtime/workers/worker-pools.js";

/**
 * The warm pools the configuration asks for, not yet started: one of empty slots
 * (WORKCELL_POOL_SIZE) and one per WORKCELL_POOL_REPOS entry, each repository resolved first.
 */
export async function createWorkerPools(
  config: Pick<Config, "poolRepos" | "poolSize">,
  deps: Omit<PoolDeps, "size" | "repo">,
): Promise<WorkerPools> {
  const poolRepos = await Promise.all(
    config.poolRepos.map(async ({ repo, size }) => ({
      repo: await resolvePoolRepo(repo, "WORKCELL_POOL_REPOS"),
      size,
    })),
  );
  return new WorkerPools(
    (size, repo) => new WorkerPool({ ...deps, size, ...(repo === undefined ? {} : { repo }) }),
    deps.runtime,
    { emptySize: config.poolSize, repos: poolRepos },
  );
}
