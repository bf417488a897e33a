import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type Docker from "dockerode";
import { dockerExecToEnd } from "./baselines.js";
import { callPlane, type ChildPlane } from "./child-plane.js";
import { measure, round, summarize } from "./stats.js";

/** What POST /v1/workers/:id/exec adds to the command's own time, against `docker exec true`. */
export async function measureRestExec(plane: ChildPlane, workerId: string, container: Docker.Container, reps: number) {
  const execTimes = { wall: [] as number[], overhead: [] as number[] };
  const execWarmup = 5;
  for (let i = 0; i < reps + execWarmup; i += 1) {
    const started = performance.now();
    const answer = await callPlane<{ durationMs: number; exitCode: number }>(
      plane,
      "POST",
      `/v1/workers/${workerId}/exec`,
      { command: ["true"] },
    );
    const wall = performance.now() - started;
    if (answer.exitCode !== 0) throw new Error(`exec true answered exit code ${answer.exitCode}`);
    if (i < execWarmup) continue;
    execTimes.wall.push(wall);
    execTimes.overhead.push(wall - answer.durationMs);
  }
  const dockerExecTrue = summarize(await measure(reps, () => dockerExecToEnd(container, ["true"]), 5));
  return {
    execTrue: summarize(execTimes.wall),
    overheadOverCommand: summarize(execTimes.overhead),
    baselineDockerExecTrue: dockerExecTrue,
    ratioToDockerExec: round(summarize(execTimes.wall).p50 / dockerExecTrue.p50),
  };
}

/** code_navigate on the 2,000-file fixture: the first call (the project loads), warm calls, and a call after one file changed. */
export async function measureCodeNavigate(plane: ChildPlane, workerId: string, client: Client, reps: number) {
  const navigate = (symbol: number) =>
    client.callTool({
      name: "code_navigate",
      arguments: {
        operation: "references",
        filePath: `src/module-${String(symbol % 40).padStart(2, "0")}/file-${symbol}.ts`,
        symbolName: `f${symbol}`,
      },
    });
  let started = performance.now();
  await navigate(0);
  const firstNavigateMs = round(performance.now() - started);
  let next = 0;
  const warmNavigate = summarize(await measure(reps, () => navigate(1 + (((next += 1) * 37) % 1_999)), 3));
  await callPlane(plane, "POST", `/v1/workers/${workerId}/exec`, {
    command: "echo 'export const edited = 1;' >> src/module-07/file-7.ts",
  });
  started = performance.now();
  await navigate(7);
  const afterEditMs = round(performance.now() - started);
  return {
    files: 2_000,
    firstCallMs: firstNavigateMs,
    warm: warmNavigate,
    afterOneFileEditedMs: afterEditMs,
    warmOverFirst: round(warmNavigate.p50 / firstNavigateMs),
  };
}

/** POST /v1/workers/:id/export of a branch with 100 changed files (the first round discarded). */
export async function measureExport(plane: ChildPlane, workerId: string) {
  const exportSamples: number[] = [];
  for (let round_ = 0; round_ < 6; round_ += 1) {
    await callPlane(plane, "POST", `/v1/workers/${workerId}/exec`, {
      command: `for i in $(seq 1 100); do echo "change ${round_} $i" >> src/module-$(printf %02d $((i % 40)))/file-$i.ts; done && git add -A && git commit -qm "round ${round_}"`,
    });
    const started = performance.now();
    await callPlane(plane, "POST", `/v1/workers/${workerId}/export`, {});
    if (round_ > 0) exportSamples.push(performance.now() - started);
  }
  return summarize(exportSamples);
}
