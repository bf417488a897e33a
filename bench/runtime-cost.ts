import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { callPlane, type ChildPlane } from "./child-plane.js";
import { measure, summarize, type Summary } from "./stats.js";

/** The runtime gVisor's cost is measured against. */
const BASELINE_RUNTIME = "runc";
const CANDIDATE_RUNTIME = "runsc";

/** How many of each measurement (after warm-up) per runtime. */
export interface RuntimeCostReps {
  readonly spawns: number;
  readonly calls: number;
  readonly builds: number;
}

/** One runtime's figures: spawn → MCP initialize, a bridged read_file, and a TypeScript build. */
export interface RuntimeFigures {
  readonly spawnToInitialize: Summary;
  readonly bridgedReadFile1KB: Summary;
  readonly build: Summary;
}

/** runsc against runc, measured in the same run on the same plane and repository. */
export interface RuntimeCost {
  readonly build: string;
  readonly runsc: RuntimeFigures;
  readonly runc: RuntimeFigures;
  /** runsc's p50 over runc's, per measurement. */
  readonly ratio: { spawnToInitialize: number; bridgedReadFile1KB: number; build: number };
}

// tsc (the sandbox image's) type-checks the fixture's sources: file-system heavy, CPU bound,
// what an agent's build step does. The file list is given directly so no tsconfig is needed.
const BUILD_DESCRIPTION = "tsc --noEmit --strict over 200 generated TypeScript files (the sandbox image's tsc)";
const BUILD_COMMAND =
  "tsc --noEmit --strict --target es2022 --module es2022 $(find src -name '*.ts' | sort | head -n 200)";

interface SpawnedWorker {
  id: string;
  mcpUrl: string;
}

async function connect(plane: ChildPlane, mcpUrl: string): Promise<Client> {
  const client = new Client({ name: "bench-runtime", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${plane.token}` } },
    }),
  );
  return client;
}

/** Times one spawn → MCP initialize under `runtime` (the worker is removed afterwards, untimed). */
async function timeSpawn(plane: ChildPlane, repo: string, runtime: string): Promise<number> {
  const started = performance.now();
  const spawned = await callPlane<SpawnedWorker>(plane, "POST", "/v1/workers", { repo, runtime });
  const client = await connect(plane, spawned.mcpUrl);
  const elapsed = performance.now() - started;
  await client.close();
  await callPlane(plane, "DELETE", `/v1/workers/${spawned.id}`);
  return elapsed;
}

async function runBuild(plane: ChildPlane, workerId: string, runtime: string): Promise<void> {
  const result = await callPlane<{ exitCode: number; stderr: string; stdout: string }>(
    plane,
    "POST",
    `/v1/workers/${workerId}/exec`,
    { command: BUILD_COMMAND, timeoutMs: 300_000 },
  );
  if (result.exitCode !== 0) throw new Error(`the build failed under ${runtime}: ${result.stdout}${result.stderr}`);
}

/** Runs `step` for each runtime in turn, `reps` rounds after one warm-up round; samples per runtime. */
async function alternate(
  runtimes: readonly string[],
  reps: number,
  step: (runtime: string) => Promise<number>,
): Promise<Map<string, number[]>> {
  const samples = new Map(runtimes.map((runtime) => [runtime, [] as number[]]));
  for (let round = 0; round <= reps; round += 1) {
    for (const runtime of runtimes) {
      const elapsed = await step(runtime);
      if (round > 0) samples.get(runtime)?.push(elapsed);
    }
  }
  return samples;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/**
 * What gVisor costs: spawn → initialize, a bridged tool call and a build, each under runsc
 * and under runc on the same control plane and repository, the runtimes taking turns at
 * each step so drift in the machine's load hits both. Undefined when the engine offers no runsc.
 */
export async function measureRuntimeCost(
  plane: ChildPlane,
  repo: string,
  offered: readonly string[],
  reps: RuntimeCostReps,
): Promise<RuntimeCost | undefined> {
  if (!offered.includes(CANDIDATE_RUNTIME) || !offered.includes(BASELINE_RUNTIME)) return undefined;
  const runtimes = [BASELINE_RUNTIME, CANDIDATE_RUNTIME] as const;
  const spawns = await alternate(runtimes, reps.spawns, (runtime) => timeSpawn(plane, repo, runtime));
  const workers = new Map<string, { worker: SpawnedWorker; client: Client }>();
  try {
    for (const runtime of runtimes) {
      const worker = await callPlane<SpawnedWorker>(plane, "POST", "/v1/workers", { repo, runtime });
      workers.set(runtime, { worker, client: await connect(plane, worker.mcpUrl) });
    }
    const use = (runtime: string) => workers.get(runtime) as { worker: SpawnedWorker; client: Client };
    const readOnce = (runtime: string) =>
      timed(() => use(runtime).client.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } }));
    for (const runtime of runtimes) await measure(0, () => readOnce(runtime), 20);
    const reads = await alternate(runtimes, reps.calls, readOnce);
    const builds = await alternate(runtimes, reps.builds, (runtime) =>
      timed(() => runBuild(plane, use(runtime).worker.id, runtime)),
    );
    const figures = (runtime: string): RuntimeFigures => ({
      spawnToInitialize: summarize(spawns.get(runtime) ?? []),
      bridgedReadFile1KB: summarize(reads.get(runtime) ?? []),
      build: summarize(builds.get(runtime) ?? []),
    });
    const runc = figures(BASELINE_RUNTIME);
    const runsc = figures(CANDIDATE_RUNTIME);
    const ratio = (pick: (figures: RuntimeFigures) => Summary) =>
      Math.round((pick(runsc).p50 / pick(runc).p50) * 100) / 100;
    return {
      build: BUILD_DESCRIPTION,
      runsc,
      runc,
      ratio: {
        spawnToInitialize: ratio((figures) => figures.spawnToInitialize),
        bridgedReadFile1KB: ratio((figures) => figures.bridgedReadFile1KB),
        build: ratio((figures) => figures.build),
      },
    };
  } finally {
    for (const { worker, client } of workers.values()) {
      await client.close().catch(() => undefined);
      await callPlane(plane, "DELETE", `/v1/workers/${worker.id}`).catch(() => undefined);
    }
  }
}
