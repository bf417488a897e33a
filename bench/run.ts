import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { DockerDriver } from "../runtime/docker/docker-driver.js";
import { ensureSandboxImage } from "../runtime/image/sandbox-image.js";
import { PROJECT_ROOT } from "../server/control-plane.js";
import { connectMcp, type BenchWorker } from "./bench-client.js";
import { callPlane, startChildPlane } from "./child-plane.js";
import { createBenchRepo } from "./fixtures.js";
import { measureDensity } from "./density.js";
import { measureManyWorkers } from "./many-workers.js";
import { describeMachine, formatDensity, formatRuntimeCost, formatSpawns, printTable } from "./report.js";
import { measureRuntimeCost, type RuntimeCost } from "./runtime-cost.js";
import { measureColdSpawn, measureWarmClaim } from "./spawn-timing.js";
import { evaluateTargets } from "./targets.js";
import { measureToolCalls } from "./tool-calls.js";
import { measureCodeNavigate, measureExport, measureRestExec } from "./worker-operations.js";

// `npm run bench`: the numbers users choose a sandbox runtime by, each against a baseline
// measured in the same run, written to bench/results.json.

const TOKEN = "bench-token-0123456789abcdef";
const COLD_REPS = Number(process.env.BENCH_COLD_REPS ?? 10);
const CALL_REPS = Number(process.env.BENCH_CALL_REPS ?? 500);
const EXEC_REPS = Number(process.env.BENCH_EXEC_REPS ?? 100);
const MANY = Number(process.env.BENCH_MANY ?? 32);
const POOL_SIZE = 4;
/** BENCH_ONLY=density: how many idle workers, and how long they idle before they are measured. */
const DENSITY = Number(process.env.BENCH_DENSITY ?? 100);
const DENSITY_IDLE_MS = Number(process.env.BENCH_DENSITY_IDLE_MS ?? 70_000);
const POOL_SETTLE_MS = 3_000;
const RUNTIME_REPS = {
  spawns: Number(process.env.BENCH_RUNTIME_SPAWNS ?? 8),
  calls: Number(process.env.BENCH_RUNTIME_CALLS ?? 200),
  builds: Number(process.env.BENCH_RUNTIME_BUILDS ?? 3),
};
/** BENCH_ONLY=runtime runs only the runsc-against-runc section; spawn only cold spawn and warm claim; density only many idle workers. */
const ONLY = process.env.BENCH_ONLY;

const docker = new Docker();
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function main(): Promise<void> {
  const driver = new DockerDriver();
  const engine = await driver.info();
  const image = await ensureSandboxImage(driver, PROJECT_ROOT, log);
  log(`image ${image}; building the fixture repository (2,000 files)`);
  const repo = await createBenchRepo(2_000);
  const dataDir = await mkdtemp(path.join(tmpdir(), "workcell-bench-data-"));
  const plane = await startChildPlane(PROJECT_ROOT, dataDir, image, TOKEN);
  const results: Record<string, unknown> = {};
  const health = (await (await fetch(`${plane.url}/health`)).json()) as { docker: { runtime?: { runtime: string } } };
  const defaultRuntime = health.docker.runtime?.runtime;
  try {
    if (ONLY === "density") {
      log(`density: ${DENSITY} idle workers`);
      const density = await measureDensity(plane, repo, DENSITY, DENSITY_IDLE_MS, TOKEN, log);
      await writeFile(
        path.join(PROJECT_ROOT, "bench", "results-density.json"),
        `${JSON.stringify({ measuredAt: new Date().toISOString(), machine: describeMachine(engine), density }, null, 2)}\n`,
      );
      process.stdout.write(formatDensity(density).join("\n") + "\n");
      return;
    }
    if (ONLY !== "spawn") {
      log("runtime cost: runsc against runc (spawn, a bridged call, a build)");
      const runtimeRepo = await createBenchRepo(200);
      try {
        results.runtimeCost = (await measureRuntimeCost(plane, runtimeRepo, engine.runtimes, RUNTIME_REPS)) ?? null;
      } finally {
        await rm(runtimeRepo, { recursive: true, force: true });
      }
    }
    if (ONLY === "runtime") {
      const report = { measuredAt: new Date().toISOString(), machine: describeMachine(engine), results };
      await writeFile(path.join(PROJECT_ROOT, "bench", "results-runtime.json"), `${JSON.stringify(report, null, 2)}\n`);
      process.stdout.write(formatRuntimeCost(results.runtimeCost as RuntimeCost | null).join("\n") + "\n");
      return;
    }

    log(`cold spawn (workers under ${defaultRuntime ?? "the engine's default"})`);
    results.coldSpawn = await measureColdSpawn(plane, repo, docker, image, defaultRuntime, COLD_REPS);

    // BENCH_ONLY=spawn stops after the spawns (and the warm claim below).
    if (ONLY !== "spawn") {
      log("tool-call round trips");
      const worker = await callPlane<BenchWorker>(plane, "POST", "/v1/workers", { repo });
      const client = await connectMcp(worker.mcpUrl, TOKEN);
      results.toolCall = await measureToolCalls({
        worker,
        client,
        repo,
        runDir: path.join(dataDir, "workers", worker.id, "run"),
        docker,
        driver,
        callReps: CALL_REPS,
        execReps: EXEC_REPS,
      });

      log("REST exec: what it adds to the command's own time");
      results.restExec = await measureRestExec(plane, worker.id, docker.getContainer(worker.containerId), EXEC_REPS);

      log("semantic navigation on the 2,000-file TypeScript project");
      results.codeNavigate = await measureCodeNavigate(plane, worker.id, client, CALL_REPS);
      await client.close();

      log("export of a branch with 100 changed files");
      results.export100Files = await measureExport(plane, worker.id);
      await callPlane(plane, "DELETE", `/v1/workers/${worker.id}`);

      log(`${MANY} live workers`);
      results.manyWorkers = await measureManyWorkers(plane, repo, docker, MANY);
    }
  } finally {
    await plane.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(repo, { recursive: true, force: true });
  }

  log(`warm claim (a second control plane with WORKCELL_POOL_REPOS=<repo>=${POOL_SIZE})`);
  results.warmClaim = await measureWarmClaim({
    projectRoot: PROJECT_ROOT,
    image,
    token: TOKEN,
    reps: COLD_REPS,
    poolSize: POOL_SIZE,
    settleMs: POOL_SETTLE_MS,
  });

  if (ONLY === "spawn") {
    process.stdout.write(formatSpawns(results).join("\n") + "\n");
    return;
  }
  const targets = evaluateTargets(results);
  const report = {
    measuredAt: new Date().toISOString(),
    machine: describeMachine(engine),
    results,
    targets,
  };
  await writeFile(path.join(PROJECT_ROOT, "bench", "results.json"), `${JSON.stringify(report, null, 2)}\n`);
  printTable(report.results as Record<string, Record<string, unknown>>, targets);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
