import { readFile, rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DockerDriver } from "../../../runtime/docker/docker-driver.js";
import { catalogOf, chooseRuntime } from "../../../runtime/docker/runtime-choice.js";
import {
  docker,
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { createTempDir, createTestRepo } from "../helpers/test-repo.js";

// Workers run under gVisor by default: the sandbox's system calls go to gVisor's user-space
// kernel (the Sentry), not to the host kernel. WORKCELL_RUNTIME=runc opts out. This file sets
// the runtime itself, so it proves the same thing whichever runtime the suite runs under.

type RuntimeWorker = ApiWorker & { runtime?: string; runtimeSource?: string };

const created: string[] = [];
let repo: string;
let hostKernel: string;
let runscCanProxy: boolean;

/** Starts a plane as if WORKCELL_RUNTIME were unset (the suite may run with it set). */
async function startWithDefaultRule(): Promise<TestPlane> {
  const saved = process.env.WORKCELL_RUNTIME;
  delete process.env.WORKCELL_RUNTIME;
  try {
    return await startTestPlane();
  } finally {
    if (saved !== undefined) process.env.WORKCELL_RUNTIME = saved;
  }
}

async function spawn(test: TestPlane, body: Record<string, unknown> = {}): Promise<RuntimeWorker> {
  const worker = (await spawnOn(test, repo, body)) as RuntimeWorker;
  created.push(worker.id);
  return worker;
}

/** The kernel the worker's processes talk to, as they see it. */
async function kernelSeenBy(test: TestPlane, worker: ApiWorker): Promise<string> {
  const { status, body } = await test.api<{ exitCode: number; stdout: string }>(
    "POST",
    `/v1/workers/${worker.id}/exec`,
    { command: "cat /proc/version" },
  );
  expect(status).toBe(200);
  expect(body.exitCode).toBe(0);
  return body.stdout.trim();
}

async function runtimeOf(worker: ApiWorker): Promise<string> {
  return (await docker.getContainer(worker.containerId).inspect()).HostConfig.Runtime ?? "";
}

beforeAll(async () => {
  repo = await createTestRepo(await createTempDir("workcell-runtime-"));
  hostKernel = (await readFile("/proc/version", "utf8")).trim();
  const catalog = catalogOf(await new DockerDriver().info());
  if (!catalog.runtimes.some((runtime) => runtime.name === "runsc")) {
    throw new Error(
      "The engine offers no runsc (gVisor), and workers are meant to run under it by default. Fix: run 'bash scripts/ensure-docker.sh' as root; it installs and registers runsc.",
    );
  }
  runscCanProxy = chooseRuntime({ needs: { bridgedNetwork: false, hostSocket: true }, catalog }).runtime === "runsc";
});

afterAll(async () => {
  await removeContainersOf(created);
});

describe("the runtime workers run under", () => {
  let test: TestPlane;
  beforeAll(async () => {
    test = await startWithDefaultRule();
  });
  afterAll(async () => {
    await stopTestPlane(test);
  });

  it("is gVisor by default: the worker's processes see gVisor's kernel, not the host's, and exec and MCP work", async () => {
    const worker = await spawn(test);
    expect(worker).toMatchObject({ runtime: "runsc", runtimeSource: "default" });
    expect(await runtimeOf(worker)).toBe("runsc");
    const seen = await kernelSeenBy(test, worker);
    expect(seen).not.toBe(hostKernel);
    const { client } = await test.connect(worker.mcpUrl);
    try {
      const dmesg = await client.callTool({ name: "shell", arguments: { command: "dmesg | head -n 3" } });
      expect((dmesg.structuredContent as { stdout: string }).stdout).toMatch(/gVisor/);
      expect(textOf(await client.callTool({ name: "read_file", arguments: { path: "README.md" } }))).toContain(
        "# demo",
      );
      // coreutils pass AT_NO_AUTOMOUNT to statx, which Debian's runsc refuses; the image's shim retries without it.
      const listing = await client.callTool({
        name: "shell",
        arguments: { command: "ls -l README.md && stat -c %s README.md; ls does-not-exist" },
      });
      const { stdout, stderr } = listing.structuredContent as { stdout: string; stderr: string };
      expect(stdout).toMatch(/^-rw.* README\.md\n7\n$/);
      expect(stderr).toMatch(/No such file or directory/);
    } finally {
      await client.close();
    }
  });

  it("says on GET /health that workers get runsc", async () => {
    const response = await fetch(`${test.plane.url}/health`);
    const body = (await response.json()) as {
      docker: { runtime: { runtime: string; source: string; offered: string[] } };
    };
    expect(body.docker.runtime).toMatchObject({ runtime: "runsc", source: "default" });
    expect(body.docker.runtime.offered).toContain("runsc");
  });

  it("lets a request choose runc, and the worker then shares the host kernel", async () => {
    const worker = await spawn(test, { runtime: "runc" });
    expect(worker).toMatchObject({ runtime: "runc", runtimeSource: "requested" });
    expect(await runtimeOf(worker)).toBe("runc");
    expect(await kernelSeenBy(test, worker)).toBe(hostKernel);
  });

  it("refuses a runtime the engine does not have with a 400 that names the field, and creates nothing", async () => {
    const before = (await test.api<{ workers: unknown[] }>("GET", "/v1/workers")).body.workers.length;
    const { status, body } = await test.api<{ error: { code: string; message: string; details: { field: string } } }>(
      "POST",
      "/v1/workers",
      { repo, runtime: "no-such-runtime" },
    );
    expect(status).toBe(400);
    expect(body.error.details.field).toBe("runtime");
    expect(body.error.message).toMatch(/has no runtime "no-such-runtime" \(it has .*runsc/);
    expect((await test.api<{ workers: unknown[] }>("GET", "/v1/workers")).body.workers.length).toBe(before);
  });

  it("chooses the runtime again at each start, so a policy gVisor cannot carry moves the worker to runc", async () => {
    const worker = await spawn(test);
    expect(worker.runtime).toBe("runsc");
    const changed = await test.api<{ appliesOnNextStart: boolean }>("PATCH", `/v1/workers/${worker.id}/permissions`, {
      net: true,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.appliesOnNextStart).toBe(true);
    await test.api("POST", `/v1/workers/${worker.id}/stop`);
    const started = await test.api<RuntimeWorker>("POST", `/v1/workers/${worker.id}/start`);
    expect(started.body).toMatchObject({ status: "running", runtime: "runc", runtimeSource: "default" });
    expect(await runtimeOf(started.body)).toBe("runc");
  });

  it("refuses, and changes nothing, a policy the worker's requested runtime cannot carry", async () => {
    const worker = await spawn(test, { runtime: "runsc" });
    const refused = await test.api<{ error: { message: string } }>("PATCH", `/v1/workers/${worker.id}/permissions`, {
      net: true,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/runtime: "runsc" cannot run this worker: .*--network=none/);
    expect(
      (await test.api<{ permissions: { net: unknown } }>("GET", `/v1/workers/${worker.id}/permissions`)).body
        .permissions.net,
    ).toBe(false);
  });

  it("runs a proxied worker under runsc only when runsc can reach the egress socket (--host-uds=open)", async () => {
    const worker = await spawn(test, { permissions: { net: ["registry.npmjs.org"] } });
    expect(worker.runtime).toBe(runscCanProxy ? "runsc" : "runc");
    expect(await runtimeOf(worker)).toBe(worker.runtime);
  });
});

describe("WORKCELL_RUNTIME", () => {
  it("=runc opts every worker out of gVisor", async () => {
    const test = await startTestPlane(undefined, { runtime: "runc" });
    try {
      const worker = await spawn(test);
      expect(worker).toMatchObject({ runtime: "runc", runtimeSource: "configured" });
      expect(await runtimeOf(worker)).toBe("runc");
      expect(await kernelSeenBy(test, worker)).toBe(hostKernel);
    } finally {
      await stopTestPlane(test);
    }
  });

  it("naming a runtime the engine lacks stops the control plane from starting, with the fix", async () => {
    const dataDir = await createTempDir("workcell-runtime-data-");
    try {
      await expect(startTestPlane(dataDir, { runtime: "no-such-runtime" })).rejects.toThrow(
        /WORKCELL_RUNTIME: the Docker engine has no runtime "no-such-runtime".*unset WORKCELL_RUNTIME/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
