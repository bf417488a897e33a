import { describe, expect, it } from "vitest";
import {
  buildSeccompProfile,
  REFUSED_SYSCALLS,
  seccompSecurityOpt,
} from "../../../../runtime/docker/seccomp-profile.js";

interface Rule {
  names: string[];
  action: string;
  errnoRet?: number;
  args?: unknown[];
  includes?: unknown;
}

describe("the workers' seccomp profile", () => {
  const profile = buildSeccompProfile() as { defaultAction: string; syscalls: Rule[] };
  const allowed = new Set(
    profile.syscalls.filter((rule) => rule.action === "SCMP_ACT_ALLOW").flatMap((rule) => rule.names),
  );

  it("refuses by default and never allows io_uring", () => {
    expect(profile.defaultAction).toBe("SCMP_ACT_ERRNO");
    for (const name of REFUSED_SYSCALLS) expect(allowed.has(name)).toBe(false);
    expect(profile.syscalls).toContainEqual({ names: [...REFUSED_SYSCALLS], action: "SCMP_ACT_ERRNO", errnoRet: 1 });
  });

  it("allows what ordinary programs need and nothing that needs a capability the container lacks", () => {
    for (const name of [
      "read",
      "write",
      "openat",
      "execve",
      "clone",
      "futex",
      "epoll_wait",
      "socket",
      "setsid",
      "wait4",
      "mmap",
      "rseq",
      "statx",
    ])
      expect([name, allowed.has(name)]).toEqual([name, true]);
    for (const name of [
      "mount",
      "unshare",
      "setns",
      "bpf",
      "perf_event_open",
      "init_module",
      "kexec_load",
      "reboot",
      "swapon",
      "keyctl",
      "add_key",
      "userfaultfd",
      "pivot_root",
    ]) {
      expect([name, allowed.has(name)]).toEqual([name, false]);
    }
  });

  it("is passed to the engine as JSON content, not a path", () => {
    const option = seccompSecurityOpt();
    expect(option.startsWith("seccomp={")).toBe(true);
    expect(JSON.parse(option.slice("seccomp=".length))).toEqual(profile);
  });
});
