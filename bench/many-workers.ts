import type Docker from "dockerode";
import { connectMcp, type BenchWorker } from "./bench-client.js";
import { callPlane, type ChildPlane } from "./child-plane.js";
import { measure, round, summarize } from "./stats.js";

/** `count` live workers: how long they take to spawn, what they and the plane hold in memory, and a light call while two of them are busy. */
export async function measureManyWorkers(plane: ChildPlane, repo: string, docker: Docker, count: number) {
  const rssBefore = plane.rssBytes();
  const startedAll = performance.now();
  const many: BenchWorker[] = [];
  for (let i = 0; i < count; i += 1) many.push(await callPlane<BenchWorker>(plane, "POST", "/v1/workers", { repo }));
  const spawnAllMs = performance.now() - startedAll;
  const memory: number[] = [];
  for (const w of many) {
    const stats = (await docker.getContainer(w.containerId).stats({ stream: false })) as {
      memory_stats?: { usage?: number };
    };
    memory.push(stats.memory_stats?.usage ?? 0);
  }
  const light = await connectMcp((many[0] as BenchWorker).mcpUrl, plane.token);
  const busy = [many[1], many[2]].map((w) =>
    callPlane(plane, "POST", `/v1/workers/${(w as BenchWorker).id}/exec`, {
      command: "timeout 20 sh -c 'while :; do :; done' || true",
      timeoutMs: 30_000,
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const lightUnderLoad = summarize(
    await measure(200, () => light.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } }), 10),
  );
  await Promise.all(busy);
  await light.close();
  const result = {
    workers: count,
    spawnAllMs: round(spawnAllMs),
    controlPlaneRssMb: round(plane.rssBytes() / 1024 / 1024),
    controlPlaneRssBeforeMb: round(rssBefore / 1024 / 1024),
    memoryPerWorkerMb: summarize(memory.map((bytes) => bytes / 1024 / 1024)),
    lightCallWhileTwoWorkersBusy: lightUnderLoad,
  };
  for (const w of many) await callPlane(plane, "DELETE", `/v1/workers/${w.id}`);
  return result;
}
