import type { ContainerSpec, ContainerState } from "../docker/container-driver.js";
import type { ResolvedRequest } from "./exec-record.js";
import { KILLED_EXIT_CODE, RunningProcess, type FakeProgram } from "./fake-process.js";

/** A container of the in-memory engine: its spec, where it is in its lifecycle, and what runs in it. */
export interface FakeContainer {
  readonly id: string;
  readonly spec: ContainerSpec;
  /** Its place in creation order (the engine lists the newest first). */
  readonly order: number;
  running: boolean;
  status: "created" | "running" | "exited";
  exitCode: number;
  oomKilled: boolean;
  main?: RunningProcess;
  readonly processes: Set<RunningProcess>;
}

/** A created container that has not started; the spec is copied, so the caller's later changes do not show. */
export function createFakeContainer(id: string, spec: ContainerSpec, order: number): FakeContainer {
  return {
    id,
    spec: structuredClone(spec),
    order,
    running: false,
    status: "created",
    exitCode: 0,
    oomKilled: false,
    processes: new Set(),
  };
}

/** The container's state as the engine's inspect answers it. */
export function stateOf(container: FakeContainer): ContainerState {
  const { id, spec, running, status, exitCode, oomKilled } = container;
  return { id, name: spec.name, running, status, exitCode, oomKilled, labels: { ...spec.labels } };
}

/** Runs `program` in the container with the container's variables before the request's; it is killed with the container. */
export function runInContainer(
  container: FakeContainer,
  program: FakeProgram,
  request: ResolvedRequest,
): RunningProcess {
  const running = new RunningProcess(program, {
    containerId: container.id,
    argv: [...request.argv],
    env: [...container.spec.env, ...request.env],
    user: request.user,
    workingDir: request.workingDir,
    terminal: request.terminal !== undefined,
  });
  container.processes.add(running);
  void running.settled.then(() => container.processes.delete(running));
  return running;
}

/** The container stops: its state says how, and everything running in it is killed. */
export function haltContainer(container: FakeContainer, exitCode: number, oomKilled: boolean): void {
  Object.assign(container, { running: false, status: "exited", exitCode, oomKilled });
  const main = container.main;
  delete container.main;
  main?.kill(exitCode);
  for (const running of container.processes) running.kill(KILLED_EXIT_CODE);
  container.processes.clear();
}
