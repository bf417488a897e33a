import { readdirSync, readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { callPlane, type ChildPlane } from "./child-plane.js";
import { measure, summarize, type Summary } from "./stats.js";

/** What many idle workers cost, all told and by part. */
export interface Density {
  /** Workers that existed while measured. */
  workers: number;
  /** Workers asked for. */
  asked: number;
  /** Where the ramp stopped short: the refused spawn's number, the answer and the control plane's last log lines. */
  stopped?: { at: number; error: string; planeLog: string };
  runtime: string | undefined;
  spawnAllMs: number;
  idleWaitMs: number;
  controlPlaneRssMb: number;
  /** dockerd, containerd and the per-container shims (and runsc's processes under gVisor): proportional resident memory. */
  enginePssMb: { before: number; after: number };
  /** The machine's MemAvailable, before the workers and once they are idle. */
  machineAvailableMb: { before: number; after: number };
  /** (MemAvailable before − after) / workers: everything an idle worker costs the machine. */
  perIdleWorkerMb: number;
  /** A light call to one of them while all exist (its session starts a server: none is left waiting). */
  lightCall: Summary;
}

const ENGINE_PROCESS = /^(dockerd|containerd|containerd-shim.*|runsc.*|exe)$/;

/** Proportional resident memory (shared pages split among their users) of the engine's processes, in bytes. */
function enginePssBytes(): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const name = /^Name:\s+(\S+)/m.exec(status)?.[1] ?? "";
      if (ENGINE_PROCESS.test(name))
        total += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${entry}/smaps_rollup`, "utf8"))?.[1] ?? 0) * 1024;
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

function availableBytes(): number {
  return Number(/MemAvailable:\s+(\d+) kB/.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0) * 1024;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/**
 * Spawns `count` workers, lets them go idle for `idleWaitMs` (past the minute after which a
 * worker holds no tools process), then measures what they cost and a light call among them.
 */
export async function measureDensity(
  plane: ChildPlane,
  repo: string,
  count: number,
  idleWaitMs: number,
  token: string,
  log: (line: string) => void,
): Promise<Density> {
  const engineBefore = enginePssBytes();
  const availableBefore = availableBytes();
  const ids: string[] = [];
  const started = performance.now();
  let runtime: string | undefined;
  try {
    // The first refused spawn ends the ramp: what exists is measured, and why it stopped is reported.
    let stopped: { at: number; error: string; planeLog: string } | undefined;
    for (let i = 0; i < count && stopped === undefined; i += 1) {
      try {
        const worker = await callPlane<{ id: string; runtime?: string }>(plane, "POST", "/v1/workers", { repo });
        runtime ??= worker.runtime;
        ids.push(worker.id);
      } catch (error) {
        stopped = {
          at: i + 1,
          error: error instanceof Error ? error.message : String(error),
          planeLog: plane.logTail(),
        };
        log(`  worker ${i + 1} was refused: ${stopped.error}`);
      }
      if ((i + 1) % 25 === 0) log(`  ${i + 1} of ${count} workers`);
    }
    if (ids.length === 0) throw new Error(`no worker could be created: ${stopped?.error ?? "unknown"}`);
    const spawnAllMs = performance.now() - started;
    log(`  ${ids.length} up in ${Math.round(spawnAllMs)} ms; idle for ${idleWaitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, idleWaitMs));
    const engineAfter = enginePssBytes();
    const availableAfter = availableBytes();
    const controlPlaneRss = plane.rssBytes();
    const worker = await callPlane<{ mcpUrl: string }>(plane, "GET", `/v1/workers/${ids[0]}`);
    const client = new Client({ name: "bench-density", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(worker.mcpUrl), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const lightCall = summarize(
      await measure(200, () => client.callTool({ name: "read_file", arguments: { path: "one-kb.txt" } }), 10),
    );
    await client.close();
    return {
      workers: ids.length,
      asked: count,
      ...(stopped === undefined ? {} : { stopped }),
      runtime,
      spawnAllMs: Math.round(spawnAllMs),
      idleWaitMs,
      controlPlaneRssMb: mb(controlPlaneRss),
      enginePssMb: { before: mb(engineBefore), after: mb(engineAfter) },
      machineAvailableMb: { before: mb(availableBefore), after: mb(availableAfter) },
      perIdleWorkerMb: mb((availableBefore - availableAfter) / ids.length),
      lightCall,
    };
  } finally {
    for (const id of ids) await callPlane(plane, "DELETE", `/v1/workers/${id}`).catch(() => undefined);
  }
}
