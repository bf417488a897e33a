import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docker, TEST_TOKEN, type ApiWorker } from "../helpers/control-plane.js";
import { runShell, startSingleWorker, stopSingleWorker, type SingleWorker } from "../helpers/single-worker.js";

// Every probe runs inside a worker the way an agent would: through the MCP shell tool. These
// probe what the worker's processes can see and reach (sockets, namespaces, mounts, open
// descriptors, the control plane's token); escape-probes.test.ts probes what they may do.
let single: SingleWorker | undefined;
let worker: ApiWorker;
let client: Client;
/**
 * Whether the worker runs under gVisor. Its processes then talk to gVisor's kernel, whose
 * /proc shows some things differently; each probe says what it checks instead, and why.
 */
let gvisor: boolean;

beforeAll(async () => {
  single = await startSingleWorker("workcell-escape-");
  ({ worker, client } = single);
  gvisor = worker.runtime === "runsc";
});

afterAll(async () => {
  await stopSingleWorker(single);
});

const sh = (command: string) => runShell(client, command);

describe("escape probes inside a worker", () => {
  it("finds no Docker or containerd socket anywhere, and nothing answers on 2375/2376", async () => {
    const sockets = await sh(
      "find / -xdev \\( -name 'docker.sock' -o -name 'containerd.sock' -o -name '*.sock' \\) -not -path '/run/workcell/*' 2>/dev/null; ls /var/run/docker.sock /run/containerd 2>&1 | head -2",
    );
    expect(sockets.stdout).not.toMatch(/docker\.sock\n|containerd\.sock\n/);
    const ports = await sh(
      "for p in 2375 2376; do (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && echo open $p || echo closed $p; done",
    );
    expect(ports.stdout).toBe("closed 2375\nclosed 2376\n");
  });

  it("sees only its own PID, IPC and UTS namespaces", async () => {
    const pids = (await sh("ls /proc | grep -E '^[0-9]+$' | wc -l")).stdout.trim();
    expect(Number(pids)).toBeLessThan(30);
    expect((await sh("cat /proc/1/cmdline | tr '\\0' ' '")).stdout).toMatch(/docker-init|tini|sleep|node/);
    expect((await sh("hostname")).stdout.trim()).not.toBe((await import("node:os")).hostname());
    if (gvisor) {
      // gVisor's kernel is the worker's kernel: none of the host's namespaces is visible,
      // and /proc/self/ns lists only its own PID namespace.
      expect((await sh("readlink /proc/self/ns/pid")).stdout.trim()).not.toBe(
        await (await import("node:fs/promises")).readlink("/proc/self/ns/pid"),
      );
      return;
    }
    const hostNs = await Promise.all(
      ["pid", "ipc", "uts"].map(async (ns) => (await import("node:fs/promises")).readlink(`/proc/self/ns/${ns}`)),
    );
    const containerNs = (await sh("readlink /proc/self/ns/pid /proc/self/ns/ipc /proc/self/ns/uts")).stdout
      .trim()
      .split("\n");
    expect(containerNs).toHaveLength(3);
    containerNs.forEach((ns, index) => expect(ns).not.toBe(hostNs[index]));
  });

  it("mounts only what it should, with the expected flags", async () => {
    const lines = (await sh("cat /proc/self/mountinfo")).stdout.trim().split("\n");
    const mounts = lines.map((line) => {
      const [left = "", right = ""] = line.split(" - ");
      const fields = left.split(" ");
      return {
        target: fields[4] as string,
        options: (fields[5] ?? "").split(","),
        fsType: right.split(" ")[0] as string,
      };
    });
    const byTarget = new Map(mounts.map((m) => [m.target, m]));
    expect(byTarget.get("/")?.options).toContain("ro");
    expect(byTarget.get("/workspace")?.options).toContain("rw");
    expect(byTarget.get("/run/workcell")?.options).toContain("ro");
    expect(byTarget.get("/sys")?.options).toContain("ro");
    // gVisor serves /proc/sys from its own kernel (no separate mount; the core_pattern probe
    // covers writes), and its tmpfs reports no nosuid/nodev: there are no setuid programs,
    // no-new-privileges holds, and no host device exists behind any node.
    if (!gvisor) expect(byTarget.get("/proc/sys")?.options).toContain("ro");
    for (const scratch of ["/tmp", "/home/agent"])
      expect(byTarget.get(scratch)).toMatchObject({
        fsType: "tmpfs",
        ...(gvisor ? {} : { options: expect.arrayContaining(["nosuid", "nodev"]) }),
      });
    // Host-backed mounts: bind mounts under runc, 9p (served by gVisor's gofer) under runsc.
    const fromHostDisk = mounts.filter(
      (m) =>
        m.target !== "/" &&
        !["proc", "tmpfs", "devpts", "mqueue", "sysfs", "cgroup", "cgroup2", "overlay", "shm"].includes(m.fsType),
    );
    const writable = fromHostDisk.filter((m) => m.options.includes("rw")).map((m) => m.target);
    expect(writable).toEqual(["/workspace"]);
    // docker-init is the init process (Init: true), bind-mounted read-only by the engine.
    const allowed = [
      "/workspace",
      "/run/workcell",
      "/etc/resolv.conf",
      "/etc/hostname",
      "/etc/hosts",
      "/sbin/docker-init",
      "/usr/sbin/docker-init",
    ];
    for (const mount of fromHostDisk)
      expect(allowed.includes(mount.target) || mount.target.endsWith("/.git/objects"), mount.target).toBe(true);
  });

  it("the MCP server process holds no descriptor to a host path", async () => {
    // Under runc the sandbox cannot list the server's descriptors (forged-channel.test.ts
    // proves that): look from the host, where the test runs as root. gVisor's /proc shows
    // their targets to any process (not the files themselves), and the host cannot see them.
    const { readdir, readlink } = await import("node:fs/promises");
    const gvisor = /runsc/.test((worker as { runtime?: string }).runtime ?? "");
    const listing = gvisor
      ? (
          await sh(
            "pid=$(pgrep -f 'workcell-tools[.]blob mcp' | head -1); for f in /proc/$pid/fd/*; do readlink \"$f\"; done",
          )
        ).stdout
      : await (async () => {
          const top = (await docker.getContainer(worker.containerId).top({ ps_args: "-eo pid,args" })) as {
            Processes: string[][];
          };
          const pid = top.Processes.find((row) => (row[1] ?? "").includes("workcell-tools.blob mcp"))?.[0];
          if (pid === undefined) return "";
          const fds = await readdir(`/proc/${pid}/fd`);
          return (await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => "")))).join("\n");
        })();
    const targets = listing.trim().split("\n").filter(Boolean);
    expect(targets.length).toBeGreaterThan(2);
    // Under gVisor the exec's stdio pipes are host descriptors passed in, shown as host:[n].
    const allowed = gvisor
      ? /^(pipe:|socket:|anon_inode:|host:\[\d+\]$|\/dev\/null$|\/workspace|\/opt\/workcell\/|\/tmp\/|\/run\/workcell\/)/
      : /^(pipe:|socket:|anon_inode:|\/dev\/null$|\/workspace|\/opt\/workcell\/|\/tmp\/|\/run\/workcell\/)/;
    for (const target of targets) expect(target, target).toMatch(allowed);
  });

  it("never sees the control plane's token: not in env, files or any process environment", async () => {
    const result = await sh(
      `grep -rlsF --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr '${TEST_TOKEN}' / ; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -cF '${TEST_TOKEN}' ; env | grep -cF '${TEST_TOKEN}'`,
    );
    expect(result.stdout).toBe("0\n0\n");
  });
});
