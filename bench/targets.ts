import { round, type Summary } from "./stats.js";

/** One goal of the benchmark, and whether this run met it. */
export interface Target {
  name: string;
  goal: string;
  measured: string;
  met: boolean | null;
  /** For a missed target: the measured value over the goal (how far off it is). */
  missedBy?: string;
}

/** Checks a run's results against the goals; a missed goal says by what factor it was missed. */
export function evaluateTargets(results: Record<string, unknown>): Target[] {
  const r = results as {
    coldSpawn: { firstCallRatio: number };
    warmClaim: { spawnToFirstToolCall: Summary };
    toolCall: {
      bridge: { readFile1KB: Summary };
      inProcessFloor: { readFile1KB: Summary };
      ratioToFloor: { readFile1KB: number };
      timesFasterThanDockerExec: number;
    };
    manyWorkers: { controlPlaneRssMb: number; lightCallWhileTwoWorkersBusy: Summary };
    codeNavigate: { warmOverFirst: number };
    restExec: { overheadOverCommand: Summary };
  };
  const read = r.toolCall.bridge.readFile1KB;
  const floorP99Ratio = round(read.p99 / r.toolCall.inProcessFloor.readFile1KB.p99);
  const warmFirst = r.warmClaim.spawnToFirstToolCall.p50;
  const targets: Target[] = [
    {
      name: "cold spawn",
      goal: "first tool call p50 ≤ 1.2× docker run + clone",
      measured: `${r.coldSpawn.firstCallRatio}×`,
      met: r.coldSpawn.firstCallRatio <= 1.2,
    },
    { name: "warm claim", goal: "first tool call p50 ≤ 50 ms", measured: `${warmFirst} ms`, met: warmFirst <= 50 },
    {
      name: "bridge vs floor",
      goal: "p50 ≤ 1.3×, p99 ≤ 3× in-process floor",
      measured: `p50 ${r.toolCall.ratioToFloor.readFile1KB}×, p99 ${floorP99Ratio}×`,
      met: r.toolCall.ratioToFloor.readFile1KB <= 1.3 && floorP99Ratio <= 3,
    },
    {
      name: "bridge latency",
      goal: "p50 ≤ 4 ms, p99 ≤ 15 ms",
      measured: `p50 ${read.p50} ms, p99 ${read.p99} ms`,
      met: read.p50 <= 4 && read.p99 <= 15,
    },
    {
      name: "vs docker exec",
      goal: "≥ 20× faster",
      measured: `${r.toolCall.timesFasterThanDockerExec}×`,
      met: r.toolCall.timesFasterThanDockerExec >= 20,
    },
    {
      name: "32 workers RSS",
      goal: "control plane ≤ 200 MB",
      measured: `${r.manyWorkers.controlPlaneRssMb} MB`,
      met: r.manyWorkers.controlPlaneRssMb <= 200,
    },
    {
      name: "light call under load",
      goal: "p99 ≤ 50 ms",
      measured: `${r.manyWorkers.lightCallWhileTwoWorkersBusy.p99} ms`,
      met: r.manyWorkers.lightCallWhileTwoWorkersBusy.p99 <= 50,
    },
    {
      name: "warm code_navigate",
      goal: "p50 ≤ 0.25× the first call",
      measured: `${r.codeNavigate.warmOverFirst}×`,
      met: r.codeNavigate.warmOverFirst <= 0.25,
    },
    {
      name: "REST exec overhead",
      goal: "p50 ≤ 30 ms over the command",
      measured: `${r.restExec.overheadOverCommand.p50} ms`,
      met: r.restExec.overheadOverCommand.p50 <= 30,
    },
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
  return targets.map((target) =>
    target.met === false ? { ...target, missedBy: `${round(factor[target.name] ?? 0)}× the goal` } : target,
  );
}
