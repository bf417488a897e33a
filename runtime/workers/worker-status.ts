import { isoNow, systemClock, type Clock } from "../clock/clock.js";
import type { ContainerDriver, ContainerState } from "../docker/container-driver.js";
import { LABEL_WORKER } from "../docker/container-spec.js";
import { raceAbort } from "../docker/exec-deadline.js";
import type { StateStore } from "../store/state-store.js";
import type { Worker, WorkerStatus } from "./worker.js";

/**
 * The status a worker should show given what the operator asked for and what the engine
 * reports: a container that is not running although it should be is a failure.
 */
export function deriveStatus(
  worker: Worker,
  container: ContainerState | undefined,
): { status: WorkerStatus; error?: string } {
  if (worker.status === "starting" && container === undefined) return { status: "starting" };
  if (worker.desired === "stopped") return { status: "stopped" };
  if (container === undefined) {
    return {
      status: "failed",
      error: "The worker's container no longer exists. Starting the worker recreates it on the same workspace.",
    };
  }
  if (container.running) {
    const task = worker.gate?.task;
    return task?.status === "failed"
      ? { status: "failed", error: `Task failed: ${task.reason ?? "no reason given"}` }
      : { status: "running" };
  }
  const why = container.oomKilled
    ? "was killed for exceeding its memory limit"
    : `exited with code ${container.exitCode}`;
  return {
    status: "failed",
    error: `The worker's container ${why}. Its workspace is intact; starting the worker again restarts it.`,
  };
}

/**
 * The worker with status refreshed from the engine; the same object when nothing changed or
 * when the engine does not answer within `deadlineMs` (if given).
 */
export async function refreshStatus(driver: ContainerDriver, worker: Worker, deadlineMs?: number): Promise<Worker> {
  if (worker.containerId === undefined) return withStatus(worker, undefined);
  const inspecting = driver.inspect(worker.containerId);
  if (deadlineMs === undefined) return withStatus(worker, await inspecting);
  const deadline = AbortSignal.timeout(deadlineMs);
  try {
    return withStatus(worker, await raceAbort(inspecting, deadline));
  } catch (error) {
    if (deadline.aborted) return worker;
    throw error;
  }
}

function withStatus(worker: Worker, container: ContainerState | undefined): Worker {
  const next = deriveStatus(worker, container);
  if (next.status === worker.status && next.error === worker.error) return worker;
  return { ...worker, status: next.status, error: next.error };
}

/**
 * After a restart: containers that carry this control plane's labels but have no stored
 * worker are removed; stored workers whose container is gone are marked failed (their
 * workspace stays, and start recreates the container). Each mismatch is handled once.
 */
export async function reconcileWorkers(
  store: StateStore,
  driver: ContainerDriver,
  labels: Record<string, string>,
  clock: Clock = systemClock,
): Promise<{ adopted: number; orphansRemoved: number; missing: number }> {
  const [workers, containers] = await Promise.all([store.listWorkers(), driver.list(labels)]);
  // A container belongs to a worker by its label, or — for one claimed from the warm pool,
  // labelled before its worker existed — by the id the worker recorded.
  const byWorker = new Map(containers.map((container) => [container.labels[LABEL_WORKER] ?? "", container]));
  for (const worker of workers) {
    const claimed = containers.find((container) => container.id === worker.containerId);
    if (claimed !== undefined) byWorker.set(worker.id, claimed);
  }
  const owned = new Set(
    [...byWorker.entries()]
      .filter(([id]) => workers.some((worker) => worker.id === id))
      .map(([, container]) => container.id),
  );
  let orphansRemoved = 0;
  for (const container of containers) {
    if (!owned.has(container.id)) {
      await driver.remove(container.id);
      orphansRemoved += 1;
    }
  }
  let adopted = 0;
  let missing = 0;
  for (const worker of workers) {
    const container = byWorker.get(worker.id);
    if (container === undefined) missing += 1;
    else adopted += 1;
    const adoptedWorker: Worker = container === undefined ? { ...worker } : { ...worker, containerId: container.id };
    if (container === undefined) delete adoptedWorker.containerId;
    const next = deriveStatus(
      adoptedWorker.status === "starting" ? { ...adoptedWorker, status: "failed" } : adoptedWorker,
      container === undefined ? undefined : await driver.inspect(container.id),
    );
    const updated = { ...adoptedWorker, status: next.status, updatedAt: isoNow(clock) };
    if (next.error === undefined) delete updated.error;
    else updated.error = next.error;
    await store.putWorker(updated);
  }
  return { adopted, orphansRemoved, missing };
}
