import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Docker from "dockerode";
import { DockerDriver } from "../runtime/docker/docker-driver.js";
import { ensureSandboxImage } from "../runtime/image/sandbox-image.js";
import { ExecStdioTransport } from "../runtime/mcp/exec-stdio-transport.js";
import { mcpServerArgv, TOOLS_EXEC } from "../runtime/workers/in-container.js";
import { PROJECT_ROOT } from "../server/control-plane.js";
import { dockerRunTrue, sharedClone, startInProcessFloor } from "./baselines.js";
import { callPlane, startChildPlane, type ChildPlane } from "./child-plane.js";
import { createBenchRepo } from "./fixtures.js";
import { measureDensity, type Density } from "./density.js";
import { measureRuntimeCost, type RuntimeCost } from "./runtime-cost.js";
import { measure, summarize, type Summary } from "./stats.js";

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
const RUNTIME_REPS = { spawns: Number(process.env.BENCH_RUNTIME_SPAWNS ?? 8), calls: Number(process.env.BENCH_RUNTIME_CALLS ?? 200), builds: Number(process.env.BENCH_RUNTIME_BUILDS ?? 3) };
/** BENCH_ONLY=runtime runs only the runsc-against-runc section; spawn only cold spawn and warm claim; density only many idle workers. */
const ONLY = process.env.BENCH_ONLY;

const docker = new Docker();
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);


async function connect(mcpUrl: string): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

interface Worker {
  id: string;
  mcpUrl: string;
  containerId: string;
  runtime?: string;
}

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
      await writeFile(path.join(PROJECT_ROOT, "bench", "results-density.json"), `${JSON.stringify({ measuredAt: new Date().toISOString(), machine: machineOf(engine), density }, null, 2)}\n`);
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
      const report = { measuredAt: new Date().toISOString(), machine: machineOf(engine), results };
      await writeFile(path.join(PROJECT_ROOT, "bench", "results-runtime.json"), `${JSON.stringify(report, null, 2)}\n`);
      process.stdout.write(formatRuntimeCost(results.runtimeCost as RuntimeCost | null).join("\n") + "\n");
      return;
    }

    log(`cold spawn (workers under ${defaultRuntime ?? "the engine's default"})`);
    const spawnSamples: number[] = [];
    const coldPhases = { created: [] as number[], initialized: [] as number[], firstCall: [] as number[] };
    for (let i = 0; i < COLD_REPS + 2; i += 1) {
      const started = performance.now();
      const spawned = await callPlane<Worker>(plane, "POST", "/v1/workers", { repo });
      const created = performance.now();
      const client = await connect(spawned.mcpUrl);
      const initialized = performance.now();
      await client.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } });
      if (i >= 2) {
        spawnSamples.push(initialized - started);
        coldPhases.created.push(created - started);
        coldPhases.initialized.push(initialized - created);
        coldPhases.firstCall.push(performance.now() - started);
      }
      await client.close();
      await callPlane(plane, "DELETE", `/v1/workers/${spawned.id}`);
    }
    const coldSpawn = summarize(spawnSamples);
    const baseline = summarize(
      await measure(COLD_REPS, async () => {
        await dockerRunTrue(docker, image, defaultRuntime);
        await sharedClone(repo);
      }, 2),
    );
    const coldFirstCall = summarize(coldPhases.firstCall);
    results.coldSpawn = {
      spawnToInitialize: coldSpawn,
      spawnToFirstToolCall: coldFirstCall,
      phases: { postTo201: summarize(coldPhases.created), createdToInitialized: summarize(coldPhases.initialized) },
      baselineDockerRunPlusClone: baseline,
      ratio: round(coldSpawn.p50 / baseline.p50),
      firstCallRatio: round(coldFirstCall.p50 / baseline.p50),
    };

    // BENCH_ONLY=spawn stops after the spawns (and the warm claim below).
    if (ONLY !== "spawn") {
      log("tool-call round trips");
      const worker = await callPlane<Worker>(plane, "POST", "/v1/workers", { repo });
      const client = await connect(worker.mcpUrl);
      const readFile = () => client.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } });
      const ping = () => client.callTool({ name: "ping", arguments: {} });
      const bridgeRead = summarize(await measure(CALL_REPS, readFile, 20));
      const bridgePing = summarize(await measure(CALL_REPS, ping, 20));
      const floor = await startInProcessFloor(path.join(repo, "one-kb.txt"));
      const floorRead = summarize(await measure(CALL_REPS, () => floor.client.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } }), 20));
      const floorPing = summarize(await measure(CALL_REPS, () => floor.client.callTool({ name: "ping", arguments: {} }), 20));
      await floor.close();
      const container = docker.getContainer(worker.containerId);
      const dockerExecCat = summarize(
        await measure(EXEC_REPS, async () => {
          const exec = await container.exec({ Cmd: ["cat", "/workspace/one-kb.txt"], AttachStdout: true, AttachStderr: true });
          const stream = await exec.start({ hijack: true, stdin: false });
          await new Promise<void>((resolve) => {
            stream.on("end", () => resolve());
            stream.resume();
          });
        }, 5),
      );
      const session = await driver.attach(worker.containerId, mcpServerArgv(), TOOLS_EXEC);
      const stdioClient = new Client({ name: "bench-stdio", version: "1" });
      await stdioClient.connect(new ExecStdioTransport(session));
      const stdioRead = summarize(await measure(CALL_REPS, () => stdioClient.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } }), 20));
      await stdioClient.close();
      results.toolCall = {
        bridge: { readFile1KB: bridgeRead, noop: bridgePing },
        inProcessFloor: { readFile1KB: floorRead, noop: floorPing },
        dockerExecCat,
        directStdio: { readFile1KB: stdioRead },
        ratioToFloor: { readFile1KB: round(bridgeRead.p50 / floorRead.p50), noop: round(bridgePing.p50 / floorPing.p50) },
        // Where a bridged read_file's median goes, hop by hop (differences of p50s in this run).
        hopsP50: {
          toolsInProcess: floorRead.p50,
          execStdioInContainer: round(stdioRead.p50 - floorRead.p50),
          httpAndBridge: round(bridgeRead.p50 - stdioRead.p50),
        },
        timesFasterThanDockerExec: round(dockerExecCat.p50 / bridgeRead.p50),
      };

      log("REST exec: what it adds to the command's own time");
      const execTimes = { wall: [] as number[], overhead: [] as number[] };
      const execWarmup = 5;
      for (let i = 0; i < EXEC_REPS + execWarmup; i += 1) {
        const started = performance.now();
        const answer = await callPlane<{ durationMs: number; exitCode: number }>(plane, "POST", `/v1/workers/${worker.id}/exec`, { command: ["true"] });
        const wall = performance.now() - started;
        if (answer.exitCode !== 0) throw new Error(`exec true answered exit code ${answer.exitCode}`);
        if (i < execWarmup) continue;
        execTimes.wall.push(wall);
        execTimes.overhead.push(wall - answer.durationMs);
      }
      const dockerExecTrue = summarize(
        await measure(EXEC_REPS, async () => {
          const exec = await container.exec({ Cmd: ["true"], AttachStdout: true, AttachStderr: true });
          const stream = await exec.start({ hijack: true, stdin: false });
          await new Promise<void>((resolve) => {
            stream.on("end", () => resolve());
            stream.resume();
          });
        }, 5),
      );
      results.restExec = { execTrue: summarize(execTimes.wall), overheadOverCommand: summarize(execTimes.overhead), baselineDockerExecTrue: dockerExecTrue, ratioToDockerExec: round(summarize(execTimes.wall).p50 / dockerExecTrue.p50) };

      log("semantic navigation on the 2,000-file TypeScript project");
      const navigate = (symbol: number) => client.callTool({ name: "code_navigate", arguments: { operation: "references", filePath: `src/module-${String(symbol % 40).padStart(2, "0")}/file-${symbol}.ts`, symbolName: `f${symbol}` } });
      let started = performance.now();
      await navigate(0);
      const firstNavigateMs = round(performance.now() - started);
      let next = 0;
      const warmNavigate = summarize(await measure(CALL_REPS, () => navigate(1 + ((next += 1) * 37) % 1_999), 3));
      await callPlane(plane, "POST", `/v1/workers/${worker.id}/exec`, { command: "echo 'export const edited = 1;' >> src/module-07/file-7.ts" });
      started = performance.now();
      await navigate(7);
      const afterEditMs = round(performance.now() - started);
      results.codeNavigate = { files: 2_000, firstCallMs: firstNavigateMs, warm: warmNavigate, afterOneFileEditedMs: afterEditMs, warmOverFirst: round(warmNavigate.p50 / firstNavigateMs) };
      await client.close();

      log("export of a branch with 100 changed files");
      const exportSamples: number[] = [];
      for (let round_ = 0; round_ < 6; round_ += 1) {
        await callPlane(plane, "POST", `/v1/workers/${worker.id}/exec`, {
          command: `for i in $(seq 1 100); do echo "change ${round_} $i" >> src/module-$(printf %02d $((i % 40)))/file-$i.ts; done && git add -A && git commit -qm "round ${round_}"`,
        });
        const started = performance.now();
        await callPlane(plane, "POST", `/v1/workers/${worker.id}/export`, {});
        if (round_ > 0) exportSamples.push(performance.now() - started);
      }
      results.export100Files = summarize(exportSamples);
      await callPlane(plane, "DELETE", `/v1/workers/${worker.id}`);

      log(`${MANY} live workers`);
      const rssBefore = plane.rssBytes();
      const startedAll = performance.now();
      const many: Worker[] = [];
      for (let i = 0; i < MANY; i += 1) many.push(await callPlane<Worker>(plane, "POST", "/v1/workers", { repo }));
      const spawnAllMs = performance.now() - startedAll;
      const memory: number[] = [];
      for (const w of many) {
        const stats = (await docker.getContainer(w.containerId).stats({ stream: false })) as { memory_stats?: { usage?: number } };
        memory.push(stats.memory_stats?.usage ?? 0);
      }
      const light = await connect((many[0] as Worker).mcpUrl);
      const busy = [many[1], many[2]].map((w) =>
        callPlane(plane, "POST", `/v1/workers/${(w as Worker).id}/exec`, { command: "timeout 20 sh -c 'while :; do :; done' || true", timeoutMs: 30_000 }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const lightUnderLoad = summarize(await measure(200, () => light.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } }), 10));
      await Promise.all(busy);
      await light.close();
      results.manyWorkers = {
        workers: MANY,
        spawnAllMs: round(spawnAllMs),
        controlPlaneRssMb: round(plane.rssBytes() / 1024 / 1024),
        controlPlaneRssBeforeMb: round(rssBefore / 1024 / 1024),
        memoryPerWorkerMb: summarize(memory.map((bytes) => bytes / 1024 / 1024)),
        lightCallWhileTwoWorkersBusy: lightUnderLoad,
      };
      for (const w of many) await callPlane(plane, "DELETE", `/v1/workers/${w.id}`);
    }
  } finally {
    await plane.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(repo, { recursive: true, force: true });
  }

  log(`warm claim (a second control plane with WORKCELL_POOL_REPOS=<repo>=${POOL_SIZE})`);
  const warmDir = await mkdtemp(path.join(tmpdir(), "workcell-bench-warm-"));
  const warmRepo = await createBenchRepo(2_000);
  const warm = await startChildPlane(PROJECT_ROOT, warmDir, image, TOKEN, { WORKCELL_POOL_REPOS: `${warmRepo}=${POOL_SIZE}` });
  try {
    const poolReady = async () => {
      for (let i = 0; i < 1_200; i += 1) {
        const { pools } = await callPlane<{ pools: { ready: number }[] }>(warm, "GET", "/v1/pools");
        // A slot is ready once cloned and started; its MCP server boots a moment later.
        if ((pools[0]?.ready ?? 0) >= POOL_SIZE) return new Promise((resolve) => setTimeout(resolve, POOL_SETTLE_MS));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error("the repository pool did not refill within 60 s");
    };
    const warmSamples: number[] = [];
    const warmFirstCall: number[] = [];
    const warmCreated: number[] = [];
    for (let i = 0; i < COLD_REPS + 2; i += 1) {
      await poolReady();
      const started = performance.now();
      const spawned = await callPlane<Worker>(warm, "POST", "/v1/workers", { repo: warmRepo });
      const created = performance.now();
      const client = await connect(spawned.mcpUrl);
      const initialized = performance.now();
      await client.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } });
      if (i >= 2) {
        warmSamples.push(initialized - started);
        warmCreated.push(created - started);
        warmFirstCall.push(performance.now() - started);
      }
      await client.close();
      await callPlane(warm, "DELETE", `/v1/workers/${spawned.id}`);
    }
    results.warmClaim = { spawnToInitialize: summarize(warmSamples), spawnToFirstToolCall: summarize(warmFirstCall), postTo201: summarize(warmCreated), poolSize: POOL_SIZE };
  } finally {
    await warm.stop();
    await rm(warmDir, { recursive: true, force: true });
    await rm(warmRepo, { recursive: true, force: true });
  }

  if (ONLY === "spawn") {
    process.stdout.write(formatSpawns(results).join("\n") + "\n");
    return;
  }
  const targets = evaluate(results);
  const report = {
    measuredAt: new Date().toISOString(),
    machine: machineOf(engine),
    results,
    targets,
  };
  await writeFile(path.join(PROJECT_ROOT, "bench", "results.json"), `${JSON.stringify(report, null, 2)}\n`);
  printTable(report.results as Record<string, Record<string, unknown>>, targets);
}

function machineOf(engine: Awaited<ReturnType<DockerDriver["info"]>>) {
  return { cores: cpus().length, memoryGb: round(totalmem() / 1024 ** 3), docker: engine.serverVersion, runc: engine.runcVersion ?? null, runtimes: engine.runtimes, node: process.version };
}

/** The runsc-against-runc lines of the table. */
function formatRuntimeCost(cost: RuntimeCost | null): string[] {
  if (cost === null) return ["runtime cost                 n/a (the engine offers no runsc; scripts/ensure-docker.sh registers it)"];
  const line = (label: string, pick: (figures: RuntimeCost["runc"]) => Summary, ratio: number) =>
    `${label.padEnd(29)}runsc ${fmt(pick(cost.runsc))}   runc ${fmt(pick(cost.runc))}   ratio ${ratio}×`;
  return [
    "",
    "gVisor's cost (milliseconds: p50 / p95 / p99; ratio of p50s, runsc over runc)",
    line("spawn → initialize", (f) => f.spawnToInitialize, cost.ratio.spawnToInitialize),
    line("read_file 1 KB via bridge", (f) => f.bridgedReadFile1KB, cost.ratio.bridgedReadFile1KB),
    line("build (tsc, 200 files)", (f) => f.build, cost.ratio.build),
  ];
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

interface Target {
  name: string;
  goal: string;
  measured: string;
  met: boolean | null;
  /** For a missed target: the measured value over the goal (how far off it is). */
  missedBy?: string;
}

function evaluate(results: Record<string, unknown>): Target[] {
  const r = results as {
    coldSpawn: { firstCallRatio: number };
    warmClaim: { spawnToFirstToolCall: Summary };
    toolCall: { bridge: { readFile1KB: Summary }; inProcessFloor: { readFile1KB: Summary }; ratioToFloor: { readFile1KB: number }; timesFasterThanDockerExec: number };
    manyWorkers: { controlPlaneRssMb: number; lightCallWhileTwoWorkersBusy: Summary };
    codeNavigate: { warmOverFirst: number };
    restExec: { overheadOverCommand: Summary };
  };
  const read = r.toolCall.bridge.readFile1KB;
  const floorP99Ratio = round(read.p99 / r.toolCall.inProcessFloor.readFile1KB.p99);
  const warmFirst = r.warmClaim.spawnToFirstToolCall.p50;
  const targets: Target[] = [
    { name: "cold spawn", goal: "first tool call p50 ≤ 1.2× docker run + clone", measured: `${r.coldSpawn.firstCallRatio}×`, met: r.coldSpawn.firstCallRatio <= 1.2 },
    { name: "warm claim", goal: "first tool call p50 ≤ 50 ms", measured: `${warmFirst} ms`, met: warmFirst <= 50 },
    { name: "bridge vs floor", goal: "p50 ≤ 1.3×, p99 ≤ 3× in-process floor", measured: `p50 ${r.toolCall.ratioToFloor.readFile1KB}×, p99 ${floorP99Ratio}×`, met: r.toolCall.ratioToFloor.readFile1KB <= 1.3 && floorP99Ratio <= 3 },
    { name: "bridge latency", goal: "p50 ≤ 4 ms, p99 ≤ 15 ms", measured: `p50 ${read.p50} ms, p99 ${read.p99} ms`, met: read.p50 <= 4 && read.p99 <= 15 },
    { name: "vs docker exec", goal: "≥ 20× faster", measured: `${r.toolCall.timesFasterThanDockerExec}×`, met: r.toolCall.timesFasterThanDockerExec >= 20 },
    { name: "32 workers RSS", goal: "control plane ≤ 200 MB", measured: `${r.manyWorkers.controlPlaneRssMb} MB`, met: r.manyWorkers.controlPlaneRssMb <= 200 },
    { name: "light call under load", goal: "p99 ≤ 50 ms", measured: `${r.manyWorkers.lightCallWhileTwoWorkersBusy.p99} ms`, met: r.manyWorkers.lightCallWhileTwoWorkersBusy.p99 <= 50 },
    { name: "warm code_navigate", goal: "p50 ≤ 0.25× the first call", measured: `${r.codeNavigate.warmOverFirst}×`, met: r.codeNavigate.warmOverFirst <= 0.25 },
    { name: "REST exec overhead", goal: "p50 ≤ 30 ms over the command", measured: `${r.restExec.overheadOverCommand.p50} ms`, met: r.restExec.overheadOverCommand.p50 <= 30 },
  ];
  const factor: Record<string, number> = {
    "cold spawn": r.coldSpawn.firstCallRatio / 1.2,
    "warm claim": warmFirst / 50,
    "bridge vs floor": Math.max(r.toolCall.ratioToFloor.readFile1KB / 1.3, floorP99Ratio / 3),
    "bridge latency": Math.max(read.p50 / 4, read.p99 / 15),
    "vs docker exec": 20 / r.toolCall.timesFasterThanDockerExec,
    "32 workers RSS": r.manyWorkers.controlPlaneRssMb / 200,
    "light call under load": r.manyWorkers.lightCallWhileTwoWorkersBusy.p99 / 50,
    "warm code_navigate": r.codeNavigate.warmOverFirst / 0.25,
    "REST exec overhead": r.restExec.overheadOverCommand.p50 / 30,
  };
  return targets.map((target) => (target.met === false ? { ...target, missedBy: `${round(factor[target.name] ?? 0)}× the goal` } : target));
}

function printTable(results: Record<string, Record<string, unknown>>, targets: Target[]): void {
  const lines = [
    "",
    "workcell benchmark (milliseconds: p50 / p95 / p99)",
    ...formatSpawns(results),
    `read_file 1 KB via bridge    ${fmt((results.toolCall as { bridge: { readFile1KB: Summary } }).bridge.readFile1KB)}   in-process floor ${fmt((results.toolCall as { inProcessFloor: { readFile1KB: Summary } }).inProcessFloor.readFile1KB)}`,
    `no-op via bridge             ${fmt((results.toolCall as { bridge: { noop: Summary } }).bridge.noop)}   in-process floor ${fmt((results.toolCall as { inProcessFloor: { noop: Summary } }).inProcessFloor.noop)}`,
    `docker exec cat              ${fmt((results.toolCall as { dockerExecCat: Summary }).dockerExecCat)}   direct stdio ${fmt((results.toolCall as { directStdio: { readFile1KB: Summary } }).directStdio.readFile1KB)}`,
    formatHops((results.toolCall as { hopsP50: Hops }).hopsP50),
    `REST exec true              ${fmt((results.restExec as { execTrue: Summary }).execTrue)}   over the command ${fmt((results.restExec as { overheadOverCommand: Summary }).overheadOverCommand)}   baseline docker exec true ${fmt((results.restExec as { baselineDockerExecTrue: Summary }).baselineDockerExecTrue)}`,
    `code_navigate, 2,000 files   first call ${(results.codeNavigate as { firstCallMs: number }).firstCallMs} ms, warm ${fmt((results.codeNavigate as { warm: Summary }).warm)}, after an edit ${(results.codeNavigate as { afterOneFileEditedMs: number }).afterOneFileEditedMs} ms`,
    `export of 100 changed files  ${fmt(results.export100Files as unknown as Summary)}`,
    `${(results.manyWorkers as { workers: number }).workers} workers: spawned in ${(results.manyWorkers as { spawnAllMs: number }).spawnAllMs} ms, control plane ${(results.manyWorkers as { controlPlaneRssMb: number }).controlPlaneRssMb} MB RSS, light call under load ${fmt((results.manyWorkers as { lightCallWhileTwoWorkersBusy: Summary }).lightCallWhileTwoWorkersBusy)}`,
    ...formatRuntimeCost((results.runtimeCost ?? null) as RuntimeCost | null),
    "",
    "targets:",
    ...targets.map((t) => `  ${t.met === null ? "n/a " : t.met ? "MET " : "MISS"} ${t.name.padEnd(22)} ${t.goal.padEnd(40)} ${t.measured}${t.missedBy ? ` (${t.missedBy})` : ""}`),
    "",
  ];
  process.stdout.write(lines.join("\n"));
}

/** A bridged read_file's p50, hop by hop. */
interface Hops {
  toolsInProcess: number;
  execStdioInContainer: number;
  httpAndBridge: number;
}

function formatHops(hops: Hops): string {
  return `read_file p50, hop by hop  tools + MCP SDK in process ${hops.toolsInProcess} ms + docker exec stdio and the tools in the container (runtime's syscalls) ${hops.execStdioInContainer} ms + HTTP and the bridge ${hops.httpAndBridge} ms`;
}

/** The density lines: what idle workers cost, against the targets. */
function formatDensity(d: Density): string[] {
  return [
    "",
    `${d.workers} idle workers (${d.runtime ?? "engine default"}), measured after ${d.idleWaitMs / 1000} s idle; spawned in ${d.spawnAllMs} ms`,
    ...(d.stopped === undefined ? [] : [`stopped short of ${d.asked}: worker ${d.stopped.at} was refused: ${d.stopped.error}`, "the control plane's last log lines:", d.stopped.planeLog]),
    `control plane RSS            ${d.controlPlaneRssMb} MB   (target ≤ 250 MB: ${d.controlPlaneRssMb <= 250 ? "met" : "missed"})`,
    `engine PSS                   ${d.enginePssMb.before} MB before, ${d.enginePssMb.after} MB after (dockerd, containerd, shims, runsc)`,
    `per idle worker, all told    ${d.perIdleWorkerMb} MB of MemAvailable (${d.machineAvailableMb.before} → ${d.machineAvailableMb.after} MB)   (target ≤ 30 MB: ${d.perIdleWorkerMb <= 30 ? "met" : "missed"})`,
    `light call among them        ${fmt(d.lightCall)}   (target p99 ≤ 50 ms: ${d.lightCall.p99 <= 50 ? "met" : "missed"})`,
  ];
}

/** The cold-spawn and warm-claim lines of the table. */
function formatSpawns(results: Record<string, unknown>): string[] {
  const cold = results.coldSpawn as { spawnToInitialize: Summary; spawnToFirstToolCall: Summary; phases: { postTo201: Summary; createdToInitialized: Summary }; baselineDockerRunPlusClone: Summary; firstCallRatio: number };
  const warm = results.warmClaim as { spawnToInitialize: Summary; spawnToFirstToolCall: Summary; postTo201: Summary };
  return [
    `cold spawn → initialize      ${fmt(cold.spawnToInitialize)}   baseline docker run + clone ${fmt(cold.baselineDockerRunPlusClone)}`,
    `cold spawn → first call      ${fmt(cold.spawnToFirstToolCall)}   ratio ${cold.firstCallRatio}× (POST → 201 ${fmt(cold.phases.postTo201)}; 201 → initialize ${fmt(cold.phases.createdToInitialized)})`,
    `warm claim → initialize      ${fmt(warm.spawnToInitialize)}   → first call ${fmt(warm.spawnToFirstToolCall)}   (POST → 201 ${fmt(warm.postTo201)})`,
  ];
}

function fmt(summary: Summary): string {
  return `${summary.p50} / ${summary.p95} / ${summary.p99}`;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
