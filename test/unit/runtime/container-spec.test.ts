import { describe, expect, it } from "vitest";
import {
  buildContainerSpec,
  CONTAINER_CAPABILITIES,
  LABEL_INSTANCE,
  LABEL_SPEC,
  LABEL_WORKER,
  sandboxUser,
  type SpecOptions,
} from "../../../runtime/docker/container-spec.js";
import { SANDBOX_USER_HELPER, SANDBOX_USER_VAR } from "../../../contract/container.js";
import { TOOLS_SNAPSHOT } from "../../../runtime/workers/in-container.js";
import { sampleWorker } from "./fixtures.js";

describe("buildContainerSpec", () => {
  const spec = buildContainerSpec(sampleWorker({ env: { FOO: "bar" } }), {
    instance: "inst",
    user: { uid: 1000, gid: 1000 },
    hostCpus: 2,
    runDir: "/data/workers/0a1b2c3d/run",
    hidden: [],
  });

  it("has no network and runs its main command as the non-root sandbox user, through the image's helper", () => {
    expect(spec.networkMode).toBe("none");
    expect(spec.command).toEqual([SANDBOX_USER_HELPER, "1000", "1000", "sleep", "infinity"]);
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
    // Owned by the sandbox user, not left to the runtime (runc makes it root's 0755).
    expect(spec.tmpfs["/home/agent"]).toMatch(/(^|,)uid=1000,gid=1000,mode=0700(,|$)/);
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
    expect(buildContainerSpec(sampleWorker({ runtime: "runsc", resources }), options)).toMatchObject({
      pids: 0,
      maxUserProcesses: 64,
      runtime: "runsc",
    });
    const underRunc = buildContainerSpec(sampleWorker({ runtime: "runc", resources }), options);
    expect(underRunc.pids).toBe(64);
    expect(underRunc.maxUserProcesses).toBeUndefined();
  });

  it("never asks for more CPUs than the engine has", () => {
    const big = buildContainerSpec(
      sampleWorker({ resources: { cpus: 8, memoryMb: 512, pids: 64, tmpMb: 64, diskMb: 1024 } }),
      { instance: "i", user: { uid: 1000, gid: 1000 }, hostCpus: 2, runDir: "/r", hidden: [] },
    );
    expect(big.cpus).toBe(2);
  });
});

describe("sandboxUser", () => {
  it("never runs the sandbox as root", () => {
    expect(sandboxUser(0, 0)).toEqual({ uid: 1000, gid: 1000 });
    expect(sandboxUser(1234, 999)).toEqual({ uid: 1234, gid: 999 });
  });
});

describe("the identity of a worker's container", () => {
  const options: SpecOptions = {
    instance: "test",
    user: { uid: 1000, gid: 1000 },
    hostCpus: 2,
    runDir: "/data/workers/0a1b2c3d/run",
    hidden: [],
  };

  it("starts as root holding only the capabilities that switch users", () => {
    const spec = buildContainerSpec(sampleWorker(), options);
    expect(spec.user).toBe("0:0");
    expect([...spec.capAdd].sort()).toEqual(["SETGID", "SETPCAP", "SETUID"]);
    expect(CONTAINER_CAPABILITIES).toHaveLength(3);
  });

  it("runs the egress forwarder as the sandbox user too", () => {
    const proxied = sampleWorker({ permissions: { ...sampleWorker().permissions, net: ["example.com"] } });
    expect(buildContainerSpec(proxied, { ...options, user: { uid: 1234, gid: 50 } }).command).toEqual([
      SANDBOX_USER_HELPER,
      "1234",
      "50",
      "node",
      "--snapshot-blob",
      TOOLS_SNAPSHOT,
      "forward",
    ]);
  });

  it("names the sandbox user for workcell's own programs last, so a worker's env cannot rename it", () => {
    const spec = buildContainerSpec(sampleWorker({ env: { FOO: "bar", [SANDBOX_USER_VAR]: "0:0" } }), options);
    // The engine keeps the last of two entries with one name.
    expect(spec.env.at(-1)).toBe(`${SANDBOX_USER_VAR}=1000:1000`);
  });

  it("changes its spec hash with the sandbox user, so a container of another identity is recreated", () => {
    const a = buildContainerSpec(sampleWorker(), options);
    const b = buildContainerSpec(sampleWorker(), { ...options, user: { uid: 1001, gid: 1001 } });
    expect(a.labels[LABEL_SPEC]).not.toBe(b.labels[LABEL_SPEC]);
  });
});
