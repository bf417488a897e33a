import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { runProcess } from "../../../../tools/shell/run-process.js";

const base = { cwd: tmpdir(), timeoutMs: 10_000, maxOutputBytes: 10_000 };

/** Running, not a zombie waiting to be reaped. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

describe("runProcess", () => {
  it("returns exit code, stdout and stderr as data", async () => {
    const result = await runProcess({ ...base, command: "echo out; echo err >&2; exit 7" });
    expect(result).toMatchObject({ exitCode: 7, stdout: "out\n", stderr: "err\n", timedOut: false, truncated: false });
  });

  it("runs an argv without a shell", async () => {
    const result = await runProcess({ ...base, command: ["printf", "%s|", "a b", "$HOME"] });
    expect(result.stdout).toBe("a b|$HOME|");
  });

  it("kills the whole process group on timeout, grandchildren included", async () => {
    const result = await runProcess({ ...base, timeoutMs: 300, command: "sleep 30 & echo $!; sleep 30" });
    expect(result.timedOut).toBe(true);
    const grandchild = Number(result.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isAlive(grandchild)).toBe(false);
  });

  it("caps output per stream and says so", async () => {
    const result = await runProcess({
      ...base,
      maxOutputBytes: 1000,
      command: "head -c 50000 /dev/zero | tr '\\\\0' x",
    });
    expect(result.truncated).toBe(true);
    expect(result.stdout).toContain("output truncated: 49000 bytes omitted");
  });

  it("reports a program that cannot be started instead of throwing", async () => {
    const result = await runProcess({ ...base, command: ["/nonexistent/program"] });
    expect(result.exitCode).toBeNull();
    expect(result.spawnError).toMatch(/ENOENT/);
  });

  it("stops when the signal aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await runProcess({ ...base, command: "sleep 30", signal: controller.signal });
    expect(result.signal).toBe("SIGTERM");
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it("kills what the command left running in its group when it ends", async () => {
    const result = await runProcess({ ...base, command: "sleep 30 >/dev/null 2>&1 & echo $!" });
    expect(result.exitCode).toBe(0);
    const leftover = Number(result.stdout.trim());
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isAlive(leftover)).toBe(false);
  });

  it("does not wait forever for a background child holding the pipes", async () => {
    const result = await runProcess({ ...base, command: "(sleep 20 &) ; echo done" });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("done\n");
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it("kills processes that left the group with setsid or a double fork when the call ends", async () => {
    const result = await runProcess({
      ...base,
      command: "setsid sleep 301 >/dev/null 2>&1 & echo $!; ( setsid sleep 302 >/dev/null 2>&1 & echo $! )",
    });
    expect(result.exitCode).toBe(0);
    const pids = result.stdout.trim().split("\n").map(Number);
    expect(pids).toHaveLength(2);
    for (let attempt = 0; attempt < 50 && pids.some(isAlive); attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pids.filter(isAlive)).toEqual([]);
  });
});
