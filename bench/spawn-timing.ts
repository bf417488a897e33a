import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type Docker from "dockerode";
import { connectMcp, type BenchWorker } from "./bench-client.js";
import { dockerRunTrue, sharedClone } from "./baselines.js";
import { callPlane, startChildPlane, type ChildPlane } from "./child-plane.js";
import { createBenchRepo } from "./fixtures.js";
import { measure, round, summarize, type Summary } from "./stats.js";

/** Spawns discarded before the measured ones. */
const WARMUP_SPAWNS = 2;

/** One spawn's times from POST /v1/workers: to the 201, to MCP initialize, to the first tool call's answer. */
interface SpawnTimes {
  created: number;
  initialized: number;
  firstCall: number;
}

/** Spawns a worker of `repo`, connects, reads a file, and removes it again. */
async function timeOneSpawn(plane: ChildPlane, repo: string): Promise<SpawnTimes> {
  const started = performance.now();
  const spawned = await callPlane<BenchWorker>(plane, "POST", "/v1/workers", { repo });
  const created = performance.now();
  const client = await connectMcp(spawned.mcpUrl, plane.token);
  const initialized = performance.now();
  await client.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } });
  const times = {
    created: created - started,
    initialized: initialized - started,
    firstCall: performance.now() - started,
  };
  await client.close();
  await callPlane(plane, "DELETE", `/v1/workers/${spawned.id}`);
  return times;
}

/** Cold spawns (no pool) against `docker run` plus a shared clone measured on the same engine and runtime. */
export async function measureColdSpawn(
  plane: ChildPlane,
  repo: string,
  docker: Docker,
  image: string,
  runtime: string | undefined,
  reps: number,
) {
  const phases = {
    spawn: [] as number[],
    created: [] as number[],
    initialized: [] as number[],
    firstCall: [] as number[],
  };
  for (let i = 0; i < reps + WARMUP_SPAWNS; i += 1) {
    const times = await timeOneSpawn(plane, repo);
    if (i < WARMUP_SPAWNS) continue;
    phases.spawn.push(times.initialized);
    phases.created.push(times.created);
    phases.initialized.push(times.initialized - times.created);
    phases.firstCall.push(times.firstCall);
  }
  const coldSpawn = summarize(phases.spawn);
  const baseline = summarize(
    await measure(
      reps,
      async () => {
        await dockerRunTrue(docker, image, runtime);
        await sharedClone(repo);
      },
      2,
    ),
  );
  const coldFirstCall = summarize(phases.firstCall);
  return {
    spawnToInitialize: coldSpawn,
    spawnToFirstToolCall: coldFirstCall,
    phases: { postTo201: summarize(phases.created), createdToInitialized: summarize(phases.initialized) },
    baselineDockerRunPlusClone: baseline,
    ratio: round(coldSpawn.p50 / baseline.p50),
    firstCallRatio: round(coldFirstCall.p50 / baseline.p50),
  };
}

/** How the warm-claim measurement is set up. */
export interface WarmClaimSettings {
  readonly projectRoot: string;
  readonly image: string;
  readonly token: string;
  readonly reps: number;
  readonly poolSize: number;
  /** How long a ready slot is given for its MCP server to boot. */
  readonly settleMs: number;
}

/** Claims from a full repository pool, on a second control plane of its own with WORKCELL_POOL_REPOS=<repo>=<poolSize>. */
export async function measureWarmClaim(
  settings: WarmClaimSettings,
): Promise<{ spawnToInitialize: Summary; spawnToFirstToolCall: Summary; postTo201: Summary; poolSize: number }> {
  const { poolSize } = settings;
  const warmDir = await mkdtemp(path.join(tmpdir(), "workcell-bench-warm-"));
  const warmRepo = await createBenchRepo(2_000);
  const warm = await startChildPlane(settings.projectRoot, warmDir, settings.image, settings.token, {
    WORKCELL_POOL_REPOS: `${warmRepo}=${poolSize}`,
  });
  try {
    const poolReady = async () => {
      for (let i = 0; i < 1_200; i += 1) {
        const { pools } = await callPlane<{ pools: { ready: number }[] }>(warm, "GET", "/v1/pools");
        // A slot is ready once cloned and started; its MCP server boots a moment later.
        if ((pools[0]?.ready ?? 0) >= poolSize) return new Promise((resolve) => setTimeout(resolve, settings.settleMs));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error("the repository pool did not refill within 60 s");
    };
    const samples = { initialized: [] as number[], firstCall: [] as number[], created: [] as number[] };
    for (let i = 0; i < settings.reps + WARMUP_SPAWNS; i += 1) {
      await poolReady();
      const times = await timeOneSpawn(warm, warmRepo);
      if (i < WARMUP_SPAWNS) continue;
      samples.initialized.push(times.initialized);
      samples.created.push(times.created);
      samples.firstCall.push(times.firstCall);
    }
    return {
      spawnToInitialize: summarize(samples.initialized),
      spawnToFirstToolCall: summarize(samples.firstCall),
      postTo201: summarize(samples.created),
      poolSize,
    };
  } finally {
    await warm.stop();
    await rm(warmDir, { recursive: true, force: true });
    await rm(warmRepo, { recursive: true, force: true });
  }
}
