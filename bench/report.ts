import { cpus, totalmem } from "node:os";
import type { EngineInfo } from "../runtime/docker/container-driver.js";
import type { Density } from "./density.js";
import type { RuntimeCost } from "./runtime-cost.js";
import { round, type Summary } from "./stats.js";
import type { Target } from "./targets.js";
import type { Hops } from "./tool-calls.js";

/** The machine a report was measured on: cores, memory, engine, runtimes, Node. */
export function describeMachine(engine: EngineInfo) {
  return {
    cores: cpus().length,
    memoryGb: round(totalmem() / 1024 ** 3),
    docker: engine.serverVersion,
    runc: engine.runcVersion ?? null,
    runtimes: engine.runtimes,
    node: process.version,
  };
}

/** The runsc-against-runc lines of the table. */
export function formatRuntimeCost(cost: RuntimeCost | null): string[] {
  if (cost === null)
    return ["runtime cost                 n/a (the engine offers no runsc; scripts/ensure-docker.sh registers it)"];
  const line = (label: string, pick: (figures: RuntimeCost["runc"]) => Summary, ratio: number) =>
    `${label.padEnd(29)}runsc ${formatSummary(pick(cost.runsc))}   runc ${formatSummary(pick(cost.runc))}   ratio ${ratio}×`;
  return [
    "",
    "gVisor's cost (milliseconds: p50 / p95 / p99; ratio of p50s, runsc over runc)",
    line("spawn → initialize", (f) => f.spawnToInitialize, cost.ratio.spawnToInitialize),
    line("read_file 1 KB via bridge", (f) => f.bridgedReadFile1KB, cost.ratio.bridgedReadFile1KB),
    line("build (tsc, 200 files)", (f) => f.build, cost.ratio.build),
  ];
}

/** Writes the run's table and its targets to stdout. */
export function printTable(results: Record<string, Record<string, unknown>>, targets: Target[]): void {
  const lines = [
    "",
    "workcell benchmark (milliseconds: p50 / p95 / p99)",
    ...formatSpawns(results),
    `read_file 1 KB via bridge    ${formatSummary((results.toolCall as { bridge: { readFile1KB: Summary } }).bridge.readFile1KB)}   in-process floor ${formatSummary((results.toolCall as { inProcessFloor: { readFile1KB: Summary } }).inProcessFloor.readFile1KB)}`,
    `no-op via bridge             ${formatSummary((results.toolCall as { bridge: { noop: Summary } }).bridge.noop)}   in-process floor ${formatSummary((results.toolCall as { inProcessFloor: { noop: Summary } }).inProcessFloor.noop)}`,
    `docker exec cat              ${formatSummary((results.toolCall as { dockerExecCat: Summary }).dockerExecCat)}   direct stdio ${formatSummary((results.toolCall as { directStdio: { readFile1KB: Summary } }).directStdio.readFile1KB)}`,
    formatHops((results.toolCall as { hopsP50: Hops }).hopsP50),
    `REST exec true              ${formatSummary((results.restExec as { execTrue: Summary }).execTrue)}   over the command ${formatSummary((results.restExec as { overheadOverCommand: Summary }).overheadOverCommand)}   baseline docker exec true ${formatSummary((results.restExec as { baselineDockerExecTrue: Summary }).baselineDockerExecTrue)}`,
    `code_navigate, 2,000 files   first call ${(results.codeNavigate as { firstCallMs: number }).firstCallMs} ms, warm ${formatSummary((results.codeNavigate as { warm: Summary }).warm)}, after an edit ${(results.codeNavigate as { afterOneFileEditedMs: number }).afterOneFileEditedMs} ms`,
    `export of 100 changed files  ${formatSummary(results.export100Files as unknown as Summary)}`,
    `${(results.manyWorkers as { workers: number }).workers} workers: spawned in ${(results.manyWorkers as { spawnAllMs: number }).spawnAllMs} ms, control plane ${(results.manyWorkers as { controlPlaneRssMb: number }).controlPlaneRssMb} MB RSS, light call under load ${formatSummary((results.manyWorkers as { lightCallWhileTwoWorkersBusy: Summary }).lightCallWhileTwoWorkersBusy)}`,
    ...formatRuntimeCost((results.runtimeCost ?? null) as RuntimeCost | null),
    "",
    "targets:",
    ...targets.map(
      (t) =>
        `  ${t.met === null ? "n/a " : t.met ? "MET " : "MISS"} ${t.name.padEnd(22)} ${t.goal.padEnd(40)} ${t.measured}${t.missedBy ? ` (${t.missedBy})` : ""}`,
    ),
    "",
  ];
  process.stdout.write(lines.join("\n"));
}

/** The hop-by-hop line of a bridged read_file's p50. */
function formatHops(hops: Hops): string {
  return `read_file p50, by hop      straight to the container over a session socket ${hops.directSocket} ms, over docker exec stdio ${hops.directExecStdio} ms; HTTP and the bridge add ${hops.httpAndBridge} ms to the bridge's channel (${hops.bridgeChannel}); the in-process floor (HTTP + tools in process) ${hops.inProcessFloor} ms`;
}

/** The density lines: what idle workers cost, against the targets. */
export function formatDensity(d: Density): string[] {
  return [
    "",
    `${d.workers} idle workers (${d.runtime ?? "engine default"}), measured after ${d.idleWaitMs / 1000} s idle; spawned in ${d.spawnAllMs} ms`,
    ...(d.stopped === undefined
      ? []
      : [
          `stopped short of ${d.asked}: worker ${d.stopped.at} was refused: ${d.stopped.error}`,
          "the control plane's last log lines:",
          d.stopped.planeLog,
        ]),
    `control plane RSS            ${d.controlPlaneRssMb} MB   (target ≤ 250 MB: ${d.controlPlaneRssMb <= 250 ? "met" : "missed"})`,
    `engine PSS                   ${d.enginePssMb.before} MB before, ${d.enginePssMb.after} MB after (dockerd, containerd, shims, runsc)`,
    `per idle worker, all told    ${d.perIdleWorkerMb} MB of MemAvailable (${d.machineAvailableMb.before} → ${d.machineAvailableMb.after} MB)   (target ≤ 30 MB: ${d.perIdleWorkerMb <= 30 ? "met" : "missed"})`,
    `light call among them        ${formatSummary(d.lightCall)}   (target p99 ≤ 50 ms: ${d.lightCall.p99 <= 50 ? "met" : "missed"})`,
  ];
}

/** The cold-spawn and warm-claim lines of the table. */
export function formatSpawns(results: Record<string, unknown>): string[] {
  const cold = results.coldSpawn as {
    spawnToInitialize: Summary;
    spawnToFirstToolCall: Summary;
    phases: { postTo201: Summary; createdToInitialized: Summary };
    baselineDockerRunPlusClone: Summary;
    firstCallRatio: number;
  };
  const warm = results.warmClaim as { spawnToInitialize: Summary; spawnToFirstToolCall: Summary; postTo201: Summary };
  return [
    `cold spawn → initialize      ${formatSummary(cold.spawnToInitialize)}   baseline docker run + clone ${formatSummary(cold.baselineDockerRunPlusClone)}`,
    `cold spawn → first call      ${formatSummary(cold.spawnToFirstToolCall)}   ratio ${cold.firstCallRatio}× (POST → 201 ${formatSummary(cold.phases.postTo201)}; 201 → initialize ${formatSummary(cold.phases.createdToInitialized)})`,
    `warm claim → initialize      ${formatSummary(warm.spawnToInitialize)}   → first call ${formatSummary(warm.spawnToFirstToolCall)}   (POST → 201 ${formatSummary(warm.postTo201)})`,
  ];
}

/** A summary as "p50 / p95 / p99". */
function formatSummary(summary: Summary): string {
  return `${summary.p50} / ${summary.p95} / ${summary.p99}`;
}
