import { realpath } from "node:fs/promises";
import { z } from "zod";
import type { ContainerDriver } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";
import { inspectSourceRepo } from "../git/source-repo.js";
import { clearPoolLeftovers, type PoolSlot, type WorkerPool } from "./worker-pool.js";

/** Most slots one pool may keep. */
export const MAX_POOL_SIZE = 64;

/** What a repository pool is set with. */
export const PoolInputSchema = z
  .object({
    repo: z.string().min(1).describe("Path of a git repository on the control plane's host"),
    size: z
      .number()
      .int()
      .min(0)
      .max(MAX_POOL_SIZE)
      .describe("Clones kept ready in started containers; 0 ends the repository's pool"),
  })
  .strict();

/** One warm pool as status shows it. */
export const PoolStatusSchema = z.object({
  repo: z
    .string()
    .optional()
    .describe("The repository whose clones the slots hold (real path); absent for the pool of empty slots"),
  size: z.number().int(),
  ready: z.number().int().describe("Slots ready to be claimed now"),
});

export type PoolStatus = z.output<typeof PoolStatusSchema>;

/** Builds a pool: of empty slots when `repo` is undefined, else of that repository's clones. */
export type PoolFactory = (size: number, repo: string | undefined) => WorkerPool;

/**
 * The warm pools of one control plane: at most one of empty slots (WORKCELL_POOL_SIZE) and
 * one per repository whose slots hold a clone made ahead of time (WORKCELL_POOL_REPOS, or
 * set while running). All build the same default container under the same runtime.
 */
export class WorkerPools {
  private readonly pools: WorkerPool[];
  private started = false;

  constructor(
    private readonly factory: PoolFactory,
    readonly runtime: string,
    initial: { readonly emptySize: number; readonly repos: readonly { repo: string; size: number }[] },
  ) {
    this.pools = [
      ...(initial.emptySize > 0 ? [factory(initial.emptySize, undefined)] : []),
      ...initial.repos.map(({ repo, size }) => factory(size, repo)),
    ];
  }

  /** Removes what a previous run left, then fills every pool. */
  async start(driver: ContainerDriver, instance: string, dataDir: string, claimed: ReadonlySet<string>): Promise<void> {
    await clearPoolLeftovers(driver, instance, dataDir, claimed);
    this.started = true;
    for (const pool of this.pools) pool.fill();
  }

  /** A ready slot for a worker of `repo`: one holding its clone when one waits, else an empty one, else none. */
  async claim(repo: string): Promise<PoolSlot | undefined> {
    if (this.pools.length === 0) return undefined;
    const real = await realpath(repo).catch(() => repo);
    return this.forRepo(real)?.claim() ?? this.empty?.claim();
  }

  /**
   * Keeps `size` ready clones of `repo` from now on (0 ends its pool). The repository is
   * checked first; a bad one changes nothing.
   */
  async setRepoPool(repo: string, size: number): Promise<PoolStatus> {
    if (!Number.isInteger(size) || size < 0 || size > MAX_POOL_SIZE) {
      throw new AppError(
        "invalid_input",
        `size: expected a whole number from 0 to ${MAX_POOL_SIZE}, received ${JSON.stringify(size)}. 0 ends the repository's pool.`,
        { details: { field: "size" } },
      );
    }
    const real = await resolvePoolRepo(repo, "repo");
    const existing = this.forRepo(real);
    if (existing !== undefined && size === 0) {
      this.pools.splice(this.pools.indexOf(existing), 1);
      await existing.close();
    } else if (existing !== undefined) await existing.resize(size);
    else if (size > 0) {
      const pool = this.factory(size, real);
      this.pools.push(pool);
      if (this.started) pool.fill();
    }
    return { repo: real, size, ready: this.forRepo(real)?.available ?? 0 };
  }

  /** The pool of empty slots, if configured. */
  get empty(): WorkerPool | undefined {
    return this.pools.find((pool) => pool.repo === undefined);
  }

  /** The pool of `repo`'s clones, if there is one (`repo` as its real path). */
  forRepo(repo: string): WorkerPool | undefined {
    return this.pools.find((pool) => pool.repo === repo);
  }

  /** Whether any pool exists now (one may be added later through setRepoPool). */
  get any(): boolean {
    return this.pools.length > 0;
  }

  status(): PoolStatus[] {
    return this.pools.map((pool) => ({
      ...(pool.repo === undefined ? {} : { repo: pool.repo }),
      size: pool.capacity,
      ready: pool.available,
    }));
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.splice(0).map((pool) => pool.close()));
  }
}

/**
 * A repository named for a pool, checked before its pool exists: an existing git repository
 * with a commit at HEAD. Returns its real path (what claims are matched on). `origin` names
 * where the path came from, for the error.
 */
export async function resolvePoolRepo(repo: string, origin: "WORKCELL_POOL_REPOS" | "repo"): Promise<string> {
  try {
    await inspectSourceRepo(repo, "HEAD");
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^(repo|baseRef): /, "") : String(error);
    throw new AppError(
      "invalid_input",
      `${origin}: ${reason}${origin === "WORKCELL_POOL_REPOS" ? " Fix the entry or remove it." : ""}`,
      { details: { field: origin } },
    );
  }
  return realpath(repo);
}
