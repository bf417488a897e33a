import { describe, expect, it } from "vitest";
import { buildContainerSpec, LABEL_INSTANCE, LABEL_WORKER, sandboxUser } from "../../../runtime/docker/container-spec.js";
import { sampleWorker } from "./fixtures.js";

describe("buildContainerSpec", () => {
  const spec = buildContainerSpec(sampleWorker({ env: { FOO: "bar" } }), { instance: "inst", user: { uid: 1000, gid: 1000 }, hostCpus: 2, runDir: "/data/workers/0a1b2c3d/run", hidden: [] });

  it("has no network and runs as a non-root user", () => {
    expect(spec.networkMode).toBe("none");
    expect(spec.user).toBe("1000:1000");
  });

  it("mounts only the workspace read-write and the object directories read-only at the same path", () => {
    expect(spec.mounts).toEqual([
      { source: "/data/workers/0a1b2c3d/workspace", target: "/workspace", readOnly: false },
      { source: "/src/repo/.git/objects", target: "/src/repo/.git/objects", readOnly: true },
      { source: "/data/workers/0a1b2c3d/run", target: "/run/workcell", readOnly: true },
    ]);
  });

  it("gives size-capped tmpfs scratch for /tmp and home", () => {
    expect(spec.tmpfs["/tmp"]).toMatch(/size=64m/);
    expect(spec.tmpfs["/home/agent"]).toMatch(/size=\d+m/);
  });

  it("labels the container with its worker and control plane instance", () => {
    expect(spec.labels).toMatchObject({ [LABEL_WORKER]: "0a1b2c3d", [LABEL_INSTANCE]: "inst" });
  });

  it("applies the worker's limits and passes granted env", () => {
    expect(spec).toMatchObject({ memoryMb: 512, pids: 128, cpus: 1 });
    expect(spec.env).toContain("FOO=bar");
  });

  it("under gVisor caps the sandbox's processes with RLIMIT_NPROC instead of the engine's PID limit", () => {
    const options = { instance: "i", user: { uid: 1000, gid: 1000 }, hostCpus: 2, runDir: "/r", hidden: [] };
    const resources = { cpus: 1, memoryMb: 512, pids: 64, tmpMb: 64, diskMb: 1024 };
    expect(buildContainerSpec(sampleWorker({ runtime: "runsc", resources }), options)).toMatchObject({ pids: 0, maxUserProcesses: 64, runtime: "runsc" });
    const underRunc = buildContainerSpec(sampleWorker({ runtime: "runc", resources }), options);
    expect(underRunc.pids).toBe(64);
    expect(underRunc.maxUserProcesses).toBeUndefined();
  });

  it("never asks for more CPUs than the engine has", () => {
    const big = buildContainerSpec(sampleWorker({ resources: { cpus: 8, memoryMb: 512, pids: 64, tmpMb: 64, diskMb: 1024 } }), { instance: "i", user: { uid: 1000, gid: 1000 }, hostCpus: 2, runDir: "/r", hidden: [] });
    expect(big.cpus).toBe(2);
  });
});

describe("sandboxUser", () => {
  it("never runs the sandbox as root", () => {
    expect(sandboxUser(0, 0)).toEqual({ uid: 1000, gid: 1000 });
    expect(sandboxUser(1234, 999)).toEqual({ uid: 1234, gid: 999 });
  });
});
