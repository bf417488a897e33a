import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  docker,
  removeContainersOf,
  spawnWorker,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { createTempDir } from "../helpers/test-repo.js";

// Every probe runs inside a worker the way an agent would: through the MCP shell tool.
let test: TestPlane;
let worker: ApiWorker;
let client: Client;
/**
 * Whether the worker runs under gVisor. Its processes then talk to gVisor's kernel, whose
 * /proc shows some things differently; each probe says what it checks instead, and why.
 */
let gvisor: boolean;

beforeAll(async () => {
  test = await startTestPlane();
  ({ worker } = await spawnWorker(test, await createTempDir("workcell-escape-")));
  ({ client } = await test.connect(worker.mcpUrl));
  gvisor = worker.runtime === "runsc";
  const info = await docker.info();
  process.stderr.write(
    `[security] Docker ${info.ServerVersion}, runc ${info.RuncCommit?.ID ?? "unknown"}, kernel ${info.KernelVersion}, worker runtime ${worker.runtime ?? "default"}\n`,
  );
});

afterAll(async () => {
  await client?.close();
  await stopTestPlane(test);
  await removeContainersOf([worker.id]);
});

async function sh(command: string): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const result = await client.callTool({ name: "shell", arguments: { command, timeoutMs: 30_000 } });
  return result.structuredContent as { exitCode: number | null; stdout: string; stderr: string };
}

/** Runs a raw syscall from Python and prints its result and errno name. */
const syscall = (number: number, args = "") =>
  sh(
    `python3 -c "import ctypes, errno; libc = ctypes.CDLL(None, use_errno=True); r = libc.syscall(${number}${args ? `, ${args}` : ""}); print(r, errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno()))"`,
  );

describe("escape probes inside a worker", () => {
  it("has no capabilities at all", async () => {
    const status = (await sh("grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status")).stdout;
    // gVisor's /proc has no CapAmb line; the other four must be there and empty.
    const values = status
      .trim()
      .split("\n")
      .map((line) => line.split(/\s+/)[1]);
    expect(values).toEqual(Array(gvisor ? 4 : 5).fill("0000000000000000"));
  });

  it("runs with NoNewPrivs and a seccomp filter (mode 2), not as uid 0", async () => {
    const status = (
      await sh(
        "grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status; python3 -c 'import ctypes; print(\"nnp\", ctypes.CDLL(None).prctl(39, 0, 0, 0, 0))'; id -u",
      )
    ).stdout;
    expect(status).toMatch(/^nnp 1$/m);
    expect(status.trim().split("\n").at(-1)).not.toBe("0");
    if (!gvisor) {
      expect(status).toMatch(/NoNewPrivs:\s+1/);
      expect(status).toMatch(/Seccomp:\s+2/);
      return;
    }
    // Under gVisor, Docker's seccomp profile is not applied inside (runsc ignores it); the
    // filter sits between gVisor's kernel and the host's: every thread of the sandbox
    // process runs in seccomp mode 2, as nobody, outside the host's user namespace.
    const sandboxPid = (await docker.getContainer(worker.containerId).inspect()).State.Pid;
    const { readdir, readFile, readlink } = await import("node:fs/promises");
    const threads = await readdir(`/proc/${sandboxPid}/task`);
    expect(threads.length).toBeGreaterThan(0);
    for (const thread of threads) {
      const threadStatus = await readFile(`/proc/${sandboxPid}/task/${thread}/status`, "utf8");
      expect(threadStatus, `thread ${thread}`).toMatch(/^Seccomp:\s+2$/m);
      expect(threadStatus).toMatch(/^Uid:\s+65534\s/m);
    }
    expect(await readlink(`/proc/${sandboxPid}/ns/user`)).not.toBe(await readlink("/proc/self/ns/user"));
  });

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

  it("cannot create namespaces, mount, use keyrings, perf, bpf or load modules", async () => {
    if (gvisor) {
      // gVisor's kernel lets a process make a user namespace of its own; it exists only in
      // gVisor, whose kernel the process still talks to.
      expect((await sh("unshare -Ur cat /proc/version")).stdout.trim()).toBe(
        (await sh("cat /proc/version")).stdout.trim(),
      );
      expect((await sh("cat /proc/version")).stdout.trim()).not.toBe(
        (await (await import("node:fs/promises")).readFile("/proc/version", "utf8")).trim(),
      );
    } else {
      expect((await sh("unshare -Ur true")).exitCode).not.toBe(0);
    }
    expect((await sh("mkdir -p /tmp/m && mount -t tmpfs none /tmp/m")).exitCode).not.toBe(0);
    // keyctl(2) = 250, perf_event_open = 298, bpf = 321, init_module = 175, finit_module = 313 on x86_64.
    for (const [name, number, args] of [
      ["keyctl", 250, "0"],
      ["perf_event_open", 298, "0, 0, -1, -1, 0"],
      ["bpf", 321, "0, 0, 0"],
      ["init_module", 175, "0, 0, 0"],
      ["finit_module", 313, "0, 0, 0"],
    ] as const) {
      const result = (await syscall(number, args)).stdout.trim();
      expect(result, name).toMatch(/^-1 (EPERM|ENOSYS|EACCES|EFAULT|EBADF|EINVAL|ENODEV)$/);
      expect(result, `${name} must not succeed`).not.toMatch(/^0 /);
    }
  });

  it("cannot write core_pattern, sysrq-trigger, the cgroup tree or any release_agent", async () => {
    for (const target of [
      "/proc/sys/kernel/core_pattern",
      "/proc/sysrq-trigger",
      "/sys/fs/cgroup/memory/memory.limit_in_bytes",
      "/sys/fs/cgroup/x",
    ]) {
      const result = await sh(`echo '|/tmp/pwn' > ${target}`);
      expect(result.exitCode, target).not.toBe(0);
    }
    const agents = await sh(
      'find /sys/fs/cgroup -name release_agent 2>/dev/null | while read f; do (echo /tmp/pwn > "$f") 2>/dev/null && echo WRITABLE $f; done; echo done',
    );
    expect(agents.stdout).toBe("done\n");
  });

  it("has no block devices and cannot mknod", async () => {
    expect((await sh("find /dev -type b 2>/dev/null | wc -l")).stdout.trim()).toBe("0");
    if (gvisor) {
      // gVisor's kernel creates device nodes in its own tmpfs, but it has no host device
      // behind them: a block node for the host's first disk cannot be opened.
      await sh("mknod /tmp/sda b 8 0");
      const opened = await sh("python3 -c \"import os; os.open('/tmp/sda', os.O_RDONLY)\"");
      expect(opened.exitCode).not.toBe(0);
      expect(opened.stderr).toMatch(/No such device|Permission denied|Operation not permitted|No such file/);
      return;
    }
    expect((await sh("mknod /tmp/sda b 8 0")).exitCode).not.toBe(0);
    expect(
      (await sh("python3 -c \"import os, stat; os.mknod('/tmp/c', stat.S_IFCHR | 0o600, os.makedev(1, 3))\"")).exitCode,
    ).not.toBe(0);
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

  it("has no setuid or setgid program to try", async () => {
    expect((await sh("find / -xdev -type f -perm /6000 2>/dev/null")).stdout).toBe("");
    expect((await sh("su -c id root </dev/null")).exitCode).not.toBe(0);
  });

  it("never sees the control plane's token: not in env, files or any process environment", async () => {
    const result = await sh(
      `grep -rlsF --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr '${TEST_TOKEN}' / ; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -cF '${TEST_TOKEN}' ; env | grep -cF '${TEST_TOKEN}'`,
    );
    expect(result.stdout).toBe("0\n0\n");
  });
});

describe("docker inspect of every worker matches its policy", () => {
  it("privileged false, CapDrop ALL, read-only root, limits, no-new-privileges, seccomp not unconfined, init, log cap, network none", async () => {
    const { body } = await test.api<{ workers: { containerId: string; network: string }[] }>("GET", "/v1/workers");
    expect(body.workers.length).toBeGreaterThan(0);
    for (const entry of body.workers) {
      const info = await docker.getContainer(entry.containerId).inspect();
      const host = info.HostConfig;
      expect(host.Privileged).toBe(false);
      expect(host.CapDrop).toEqual(["ALL"]);
      // Only the container's root holds these, to start everything else as the sandbox user
      // (the capability test above shows the agent's processes hold none).
      expect([...(host.CapAdd ?? [])].sort()).toEqual(["SETGID", "SETPCAP", "SETUID"]);
      expect(info.Config.User).toBe("0:0");
      expect(info.Config.Cmd?.slice(0, 3)).toEqual(["/usr/libexec/workcell-sandbox-user", "1000", "1000"]);
      expect(host.ReadonlyRootfs).toBe(true);
      // gVisor caps the sandbox's processes with RLIMIT_NPROC instead (see container-spec.ts).
      if (host.Runtime === "runsc")
        expect(host.Ulimits?.find((limit) => limit.Name === "nproc")?.Hard).toBeGreaterThan(0);
      else expect(host.PidsLimit).toBeGreaterThan(0);
      expect(host.Memory).toBeGreaterThan(0);
      expect(host.MemorySwap).toBe(host.Memory);
      expect(host.NanoCpus).toBeGreaterThan(0);
      expect(host.SecurityOpt).toContain("no-new-privileges:true");
      expect(
        (host.SecurityOpt ?? []).some((opt: string) => /seccomp[=:]unconfined|apparmor[=:]unconfined/.test(opt)),
      ).toBe(false);
      expect(host.Init).toBe(true);
      expect(host.LogConfig?.Config?.["max-size"]).toBeDefined();
      expect(host.NetworkMode).toBe(entry.network === "bridged" ? "bridge" : "none");
      expect(host.Binds ?? []).toEqual([]);
    }
  });
});
