import { describe, expect, it } from "vitest";
import type { EngineInfo } from "../../../../runtime/docker/container-driver.js";
import {
  assertConfiguredRuntime,
  catalogOf,
  chooseRuntime,
  isGvisorRuntime,
  runtimeMisfit,
  runtimeNeedsOf,
  summarizeRuntimes,
  type RuntimeCatalog,
} from "../../../../runtime/docker/runtime-choice.js";
import { defaultPolicy } from "../../../../runtime/permissions/policy.js";

const plain = { bridgedNetwork: false, hostSocket: false };
const proxied = { bridgedNetwork: false, hostSocket: true };
const bridged = { bridgedNetwork: true, hostSocket: false };

function catalog(runscArgs: string[] | undefined): RuntimeCatalog {
  const runc = { name: "runc", path: "runc", args: [] };
  return {
    runtimes: runscArgs === undefined ? [runc] : [runc, { name: "runsc", path: "/usr/bin/runsc", args: runscArgs }],
    engineDefault: "runc",
  };
}

const full = catalog(["--network=none", "--host-uds=open"]);

describe("chooseRuntime", () => {
  it("picks runsc by default when the engine offers it", () => {
    expect(chooseRuntime({ needs: plain, catalog: full })).toEqual({ runtime: "runsc", source: "default" });
  });

  it("falls back to the engine's default when the engine has no runsc, and says why", () => {
    expect(chooseRuntime({ needs: plain, catalog: catalog(undefined) })).toEqual({
      runtime: "runc",
      source: "default",
      note: "the engine offers no runsc",
    });
  });

  it("lets WORKCELL_RUNTIME=runc opt out of gVisor", () => {
    expect(chooseRuntime({ configured: "runc", needs: plain, catalog: full })).toEqual({
      runtime: "runc",
      source: "configured",
    });
  });

  it("prefers the runtime a request names over WORKCELL_RUNTIME", () => {
    expect(chooseRuntime({ requested: "runsc", configured: "runc", needs: plain, catalog: full })).toEqual({
      runtime: "runsc",
      source: "requested",
    });
  });

  it("refuses a named runtime the engine does not have, naming the field and what it has", () => {
    expect(() => chooseRuntime({ requested: "kata", needs: plain, catalog: full })).toThrow(
      /runtime: the Docker engine has no runtime "kata" \(it has runc, runsc\)/,
    );
    expect(() => chooseRuntime({ configured: "kata", needs: plain, catalog: full })).toThrow(
      /WORKCELL_RUNTIME: the Docker engine has no runtime "kata"/,
    );
  });

  it("keeps a proxied worker off a runsc that cannot reach host sockets, unless runsc was asked for", () => {
    const noUds = catalog(["--network=none"]);
    const fallback = chooseRuntime({ needs: proxied, catalog: noUds });
    expect(fallback.runtime).toBe("runc");
    expect(fallback.note).toMatch(/without --host-uds=open/);
    expect(() => chooseRuntime({ requested: "runsc", needs: proxied, catalog: noUds })).toThrow(
      /"runsc" cannot run this worker: .*--host-uds=open.*choose another runtime such as runc/,
    );
    expect(chooseRuntime({ needs: proxied, catalog: full }).runtime).toBe("runsc");
  });

  it("keeps a fully networked worker off a runsc registered with --network=none", () => {
    expect(chooseRuntime({ needs: bridged, catalog: full })).toMatchObject({ runtime: "runc", source: "default" });
    expect(chooseRuntime({ needs: bridged, catalog: catalog(["--host-uds=all"]) }).runtime).toBe("runsc");
    expect(() => chooseRuntime({ configured: "runsc", needs: bridged, catalog: full })).toThrow(
      /WORKCELL_RUNTIME: "runsc" cannot run this worker: .*--network=none/,
    );
  });

  it("falls back to a non-gVisor runtime when gVisor is also the engine's default", () => {
    expect(chooseRuntime({ needs: bridged, catalog: { ...full, engineDefault: "runsc" } }).runtime).toBe("runc");
  });
});

describe("runtimeMisfit", () => {
  it("reads flags in both --flag=value and --flag value forms, the last one winning", () => {
    const runsc = (args: string[]) => ({ name: "runsc", path: "/usr/bin/runsc", args });
    expect(runtimeMisfit(runsc(["--host-uds", "open"]), proxied)).toBeUndefined();
    expect(runtimeMisfit(runsc(["--host-uds=open", "--host-uds=none"]), proxied)).toMatch(/host-uds/);
    expect(runtimeMisfit(runsc(["--fsgofer-host-uds"]), proxied)).toBeUndefined();
  });

  it("recognises gVisor by its binary under another name, and never limits other runtimes", () => {
    expect(runtimeMisfit({ name: "gvisor", path: "/opt/bin/runsc", args: ["--network=none"] }, bridged)).toMatch(
      /network=none/,
    );
    expect(
      runtimeMisfit(
        { name: "runc", path: "runc", args: ["--network=none"] },
        { bridgedNetwork: true, hostSocket: true },
      ),
    ).toBeUndefined();
  });
});

describe("runtimeNeedsOf", () => {
  it("derives the needs from the policy's network grant", () => {
    expect(runtimeNeedsOf(defaultPolicy())).toEqual(plain);
    expect(runtimeNeedsOf({ ...defaultPolicy(), net: true })).toEqual(bridged);
    expect(runtimeNeedsOf({ ...defaultPolicy(), net: ["example.com"] })).toEqual(proxied);
  });
});

describe("catalogOf and summarizeRuntimes", () => {
  const info: EngineInfo = {
    serverVersion: "20.10",
    apiVersion: "1.41",
    os: "Debian",
    containers: 0,
    cpus: 2,
    memoryBytes: 0,
    runtimes: ["runc", "runsc"],
    runtimeDetails: { runsc: { path: "/usr/bin/runsc", args: ["--network=none"] } },
    defaultRuntime: "runc",
    runcVersion: undefined,
  };

  it("builds the catalog from the engine's report, defaulting missing details", () => {
    expect(catalogOf(info)).toEqual({
      runtimes: [
        { name: "runc", path: "runc", args: [] },
        { name: "runsc", path: "/usr/bin/runsc", args: ["--network=none"] },
      ],
      engineDefault: "runc",
    });
  });

  it("says what a default worker runs under and which policies run elsewhere", () => {
    const summary = summarizeRuntimes(catalogOf(info), undefined);
    expect(summary).toMatchObject({ runtime: "runsc", source: "default", offered: ["runc", "runsc"] });
    expect(summary.exceptions).toHaveLength(2);
    expect(summary.exceptions[0]).toMatch(/^workers with net: true run under runc: .*--network=none/);
    expect(summary.exceptions[1]).toMatch(/egress proxy.* run under runc: .*--host-uds=open/);
    expect(summarizeRuntimes(catalogOf(info), "runsc").exceptions[0]).toMatch(
      /^workers with net: true are refused: WORKCELL_RUNTIME/,
    );
    expect(summarizeRuntimes(catalogOf(info), "runc")).toMatchObject({
      runtime: "runc",
      source: "configured",
      exceptions: [],
    });
  });
});

describe("assertConfiguredRuntime", () => {
  it("accepts an offered or unset runtime and refuses an unknown one with the fix", () => {
    expect(() => assertConfiguredRuntime(undefined, full)).not.toThrow();
    expect(() => assertConfiguredRuntime("runsc", full)).not.toThrow();
    expect(() => assertConfiguredRuntime("runsc", catalog(undefined))).toThrow(
      /WORKCELL_RUNTIME: the Docker engine has no runtime "runsc" \(it has runc\).*ensure-docker\.sh.*unset WORKCELL_RUNTIME/,
    );
  });
});

describe("isGvisorRuntime", () => {
  it("knows gVisor by name or by the binary a runtime of another name runs, and nothing else", () => {
    const renamed: RuntimeCatalog = {
      runtimes: [...full.runtimes, { name: "sandboxed", path: "/opt/gvisor/runsc", args: [] }],
      engineDefault: "runc",
    };
    expect(isGvisorRuntime(renamed, "runsc")).toBe(true);
    expect(isGvisorRuntime(renamed, "sandboxed")).toBe(true);
    expect(isGvisorRuntime(renamed, "runc")).toBe(false);
    expect(isGvisorRuntime(renamed, undefined)).toBe(false);
    // A runtime the engine no longer lists: only its name can tell.
    expect(isGvisorRuntime(catalog(undefined), "runsc")).toBe(true);
    expect(isGvisorRuntime(catalog(undefined), "kata")).toBe(false);
  });
});
