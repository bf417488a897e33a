import { describe, expect, it } from "vitest";
import type { ContainerDriver, ContainerState } from "../../../runtime/docker/container-driver.js";
import { deriveStatus, refreshStatus } from "../../../runtime/workers/worker-status.js";
import { sampleWorker } from "./fixtures.js";

const container = (overrides: Partial<ContainerState> = {}): ContainerState => ({
  id: "c",
  name: "n",
  running: true,
  status: "running",
  exitCode: 0,
  oomKilled: false,
  labels: {},
  ...overrides,
});

describe("deriveStatus", () => {
  it("is running when the container runs as asked", () => {
    expect(deriveStatus(sampleWorker(), container())).toEqual({ status: "running" });
  });

  it("is failed, with the exit code and the way back, when the container died unasked", () => {
    const result = deriveStatus(sampleWorker(), container({ running: false, exitCode: 137 }));
    expect(result.status).toBe("failed");
    expect(result.error).toMatch(/exited with code 137.*workspace is intact.*start/);
  });

  it("names an out-of-memory kill", () => {
    expect(deriveStatus(sampleWorker(), container({ running: false, oomKilled: true })).error).toMatch(/memory limit/);
  });

  it("is failed when the container vanished", () => {
    expect(deriveStatus(sampleWorker(), undefined).error).toMatch(/no longer exists/);
  });

  it("is stopped when the operator stopped it, whatever the container says", () => {
    expect(deriveStatus(sampleWorker({ desired: "stopped" }), container({ running: false, exitCode: 137 }))).toEqual({
      status: "stopped",
    });
  });
});

describe("refreshStatus with a deadline", () => {
  const driverWith = (inspect: () => Promise<ContainerState | undefined>) =>
    ({ inspect }) as unknown as ContainerDriver;

  it("answers the stored worker when the engine does not answer in time", async () => {
    const worker = { ...sampleWorker(), containerId: "c", status: "running" as const };
    expect(
      await refreshStatus(
        driverWith(() => new Promise(() => undefined)),
        worker,
        20,
      ),
    ).toBe(worker);
  });

  it("uses the engine's answer when it comes in time", async () => {
    const worker = { ...sampleWorker(), containerId: "c", status: "running" as const };
    const refreshed = await refreshStatus(
      driverWith(async () => container({ running: false, exitCode: 1 })),
      worker,
      5_000,
    );
    expect(refreshed.status).toBe("failed");
  });

  it("still reports an engine error that is not a timeout", async () => {
    const worker = { ...sampleWorker(), containerId: "c" };
    await expect(
      refreshStatus(
        driverWith(() => Promise.reject(new Error("engine said no"))),
        worker,
        5_000,
      ),
    ).rejects.toThrow("engine said no");
  });
});
