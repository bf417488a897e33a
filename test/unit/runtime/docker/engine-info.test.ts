import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { readEngineInfo } from "../../../../runtime/docker/engine-info.js";

describe("readEngineInfo", () => {
  it("lists the registered runtimes with their binaries and arguments, and the default runtime when the engine names one", () => {
    const info = readEngineInfo(
      {
        OperatingSystem: "Debian",
        Containers: 3,
        NCPU: 4,
        MemTotal: 8e9,
        DefaultRuntime: "runc",
        Runtimes: {
          runc: { path: "runc" },
          runsc: { path: "/usr/bin/runsc", runtimeArgs: ["--platform=systrap"] },
          odd: null,
        },
        RuncCommit: { ID: "v1.1" },
      },
      { Version: "27.0", ApiVersion: "1.46" } as Docker.DockerVersion,
    );
    expect(info).toEqual({
      serverVersion: "27.0",
      apiVersion: "1.46",
      os: "Debian",
      containers: 3,
      cpus: 4,
      memoryBytes: 8e9,
      runtimes: ["runc", "runsc", "odd"],
      runtimeDetails: {
        runc: { path: "runc", args: [] },
        runsc: { path: "/usr/bin/runsc", args: ["--platform=systrap"] },
        odd: { path: "odd", args: [] },
      },
      defaultRuntime: "runc",
      runcVersion: "v1.1",
    });
    expect("defaultRuntime" in readEngineInfo({}, { Version: "1", ApiVersion: "1" } as Docker.DockerVersion)).toBe(
      false,
    );
  });
});
