import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docker, type ApiWorker, type TestPlane } from "../helpers/control-plane.js";
import { runShell, startSingleWorker, stopSingleWorker, type SingleWorker } from "../helpers/single-worker.js";

// Every probe runs inside a worker the way an agent would: through the MCP shell tool. These
// probe what the worker's processes may do (capabilities, privileges, kernel interfaces,
// devices) and how its container is configured; escape-probes-exposure.test.ts probes what
// they can see and reach.
let single: SingleWorker | undefined;
let test: TestPlane;
let worker: ApiWorker;
let client: Client;
/**
 * Whether the worker runs under gVisor. Its processes then talk to gVisor's kernel, whose
 * /proc shows some things differently; each probe says what it checks instead, and why.
 */
let gvisor: boolean;

beforeAll(async () => {
  single = await startSingleWorker("workcell-escape-");
  ({ test, worker, client } = single);
  gvisor = worker.runtime === "runsc";
  const info = await docker.info();
  process.stderr.write(
    `[security] Docker ${info.ServerVersion}, runc ${info.RuncCommit?.ID ?? "unknown"}, kernel ${info.KernelVersion}, worker runtime ${worker.runtime ?? "default"}\n`,
  );
});

afterAll(async () => {
  await stopSingleWorker(single);
});

const sh = (command: string) => runShell(client, command);

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

  it("has no setuid or setgid program to try", async () => {
    expect((await sh("find / -xdev -type f -perm /6000 2>/dev/null")).stdout).toBe("");
    expect((await sh("su -c id root </dev/null")).exitCode).not.toBe(0);
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
