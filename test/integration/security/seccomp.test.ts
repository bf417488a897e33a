import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { createTempDir, createTestRepo } from "../helpers/test-repo.js";

/** Calls io_uring_setup (425 on x86_64 and arm64) and prints its result and errno name. */
const IO_URING_PROBE = [
  "import ctypes, errno",
  "libc = ctypes.CDLL(None, use_errno=True)",
  "fd = libc.syscall(425, 1, ctypes.create_string_buffer(120))",
  "print(fd, errno.errorcode.get(ctypes.get_errno(), 'OK') if fd < 0 else 'OK')",
].join("\n");

describe.each(["runc", "runsc"])("the workers' seccomp profile under %s", (runtime) => {
  let test: TestPlane;
  let worker: ApiWorker;
  const spawned: string[] = [];

  beforeAll(async () => {
    test = await startTestPlane(undefined, { runtime });
    const repo = await createTestRepo(await createTempDir("workcell-seccomp-"));
    worker = await spawnOn(test, repo);
    spawned.push(worker.id);
  });

  afterAll(async () => {
    await stopTestPlane(test);
    await removeContainersOf(spawned);
  });

  const exec = (command: string | string[]) =>
    test.api<{ exitCode: number | null; stdout: string; stderr: string }>("POST", `/v1/workers/${worker.id}/exec`, {
      command,
      timeoutMs: 30_000,
    });

  it("keeps ordinary work (processes, threads, git, node) running", async () => {
    const answer = await exec(
      "git status --short >/dev/null && node -e 'new Worker' 2>/dev/null; python3 -c 'import threading, subprocess; t = threading.Thread(target=print); t.start(); t.join(); subprocess.run([\"true\"], check=True)' && echo fine",
    );
    expect(answer.body.stdout.trim().split("\n").pop()).toBe("fine");
  });

  it.runIf(runtime === "runc")("refuses io_uring_setup with EPERM", async () => {
    const answer = await exec(["python3", "-c", IO_URING_PROBE]);
    expect(answer.body.stdout.trim()).toBe("-1 EPERM");
  });

  // gVisor does not apply Docker's seccomp profile; its io_uring is the Sentry's own
  // implementation, so the call never reaches the host kernel's io_uring (see SECURITY.md).
  it.runIf(runtime === "runsc")(
    "runs the probe inside gVisor, whose io_uring never reaches the host kernel",
    async () => {
      const kernel = await exec("dmesg 2>/dev/null | head -1; cat /proc/version");
      expect(kernel.body.stdout).toMatch(/gVisor|Starting gVisor/);
      const answer = await exec(["python3", "-c", IO_URING_PROBE]);
      expect(answer.body.stdout.trim()).toMatch(/^(-1 E[A-Z]+|\d+ OK)$/);
    },
  );
});
