import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { readInspectedState, readListedState, toCreateOptions } from "../../../../runtime/docker/container-config.js";
import type { ContainerSpec } from "../../../../runtime/docker/container-driver.js";
import { seccompSecurityOpt } from "../../../../runtime/docker/seccomp-profile.js";

const spec: ContainerSpec = {
  name: "workcell-w1",
  image: "workcell-sandbox:abc",
  user: "0:0",
  capAdd: ["SETUID"],
  env: ["A=1"],
  labels: { "dev.workcell.worker": "w1" },
  workingDir: "/workspace",
  command: ["sleep", "infinity"],
  mounts: [
    { source: "/host/ws", target: "/workspace", readOnly: false },
    { type: "tmpfs", target: "/workspace/.env", readOnly: true },
  ],
  tmpfs: { "/tmp": "rw,size=64m" },
  networkMode: "none",
  memoryMb: 512,
  cpus: 1.5,
  pids: 0,
  logMaxBytes: 1_000_000,
};

describe("toCreateOptions", () => {
  it("locks the container down whatever the spec says: every capability dropped but those asked back, read-only root, no new privileges, the seccomp profile, no restarts", () => {
    const host = toCreateOptions(spec).HostConfig;
    expect(host).toMatchObject({
      CapDrop: ["ALL"],
      CapAdd: ["SETUID"],
      Privileged: false,
      ReadonlyRootfs: true,
      Init: true,
      IpcMode: "private",
      RestartPolicy: { Name: "no" },
    });
    expect(host?.SecurityOpt).toEqual(["no-new-privileges:true", seccompSecurityOpt()]);
  });

  it("turns limits into the engine's units: memory without swap on top, nano-CPUs, and no PID limit for 0", () => {
    expect(toCreateOptions(spec).HostConfig).toMatchObject({
      Memory: 512 * 1024 * 1024,
      MemorySwap: 512 * 1024 * 1024,
      NanoCpus: 1_500_000_000,
      PidsLimit: -1,
    });
    expect(toCreateOptions({ ...spec, pids: 256, maxUserProcesses: 64 }).HostConfig).toMatchObject({
      PidsLimit: 256,
      Ulimits: [{ Name: "nproc", Soft: 64, Hard: 64 }],
    });
  });

  it("mounts binds privately and masks with an empty read-only tmpfs", () => {
    expect(toCreateOptions(spec).HostConfig?.Mounts).toEqual([
      {
        Type: "bind",
        Source: "/host/ws",
        Target: "/workspace",
        ReadOnly: false,
        BindOptions: { Propagation: "rprivate" },
      },
      {
        Type: "tmpfs",
        Source: "",
        Target: "/workspace/.env",
        ReadOnly: true,
        TmpfsOptions: { SizeBytes: 4096, Mode: 0o555 },
      },
    ]);
  });

  it("names a runtime and keeps capabilities only when the spec asks", () => {
    const plain = toCreateOptions({ ...spec, capAdd: [] }).HostConfig ?? {};
    expect("CapAdd" in plain || "Runtime" in plain || "Ulimits" in plain).toBe(false);
    expect(toCreateOptions({ ...spec, runtime: "runsc" }).HostConfig?.Runtime).toBe("runsc");
  });
});

describe("reading container states", () => {
  it("reads a listed container's exit code from its status text, and an inspected one's from its state", () => {
    const listed = {
      Id: "c1",
      Names: ["/workcell-w1"],
      State: "exited",
      Status: "Exited (137) 5 seconds ago",
      Labels: { a: "b" },
    } as unknown as Docker.ContainerInfo;
    expect(readListedState(listed)).toEqual({
      id: "c1",
      name: "workcell-w1",
      running: false,
      status: "exited",
      exitCode: 137,
      oomKilled: false,
      labels: { a: "b" },
    });
    const inspected = {
      Id: "c1",
      Name: "/workcell-w1",
      State: { Running: false, Status: "exited", ExitCode: 137, OOMKilled: true },
      Config: { Labels: null },
    } as unknown as Docker.ContainerInspectInfo;
    expect(readInspectedState(inspected)).toEqual({
      id: "c1",
      name: "workcell-w1",
      running: false,
      status: "exited",
      exitCode: 137,
      oomKilled: true,
      labels: {},
    });
  });
});
