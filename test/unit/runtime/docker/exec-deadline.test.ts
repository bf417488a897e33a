import { describe, expect, it } from "vitest";
import { killAfterArgv, raceAbort } from "../../../../runtime/docker/exec-deadline.js";

describe("killAfterArgv", () => {
  it("runs the program under timeout -s KILL with the deadline rounded up to whole seconds", () => {
    expect(killAfterArgv(["git", "-C", "/workspace", "status"], 1500)).toEqual([
      "timeout",
      "-s",
      "KILL",
      "2s",
      "git",
      "-C",
      "/workspace",
      "status",
    ]);
    expect(killAfterArgv(["node"], 60_000)).toEqual(["timeout", "-s", "KILL", "60s", "node"]);
  });

  it("refuses a deadline that is not positive and an empty argv", () => {
    expect(() => killAfterArgv(["true"], 0)).toThrow(/positive/);
    expect(() => killAfterArgv(["true"], Number.NaN)).toThrow(/positive/);
    expect(() => killAfterArgv([], 1000)).toThrow(/at least the program/);
  });
});

describe("raceAbort", () => {
  it("answers what the promise answers when the signal stays quiet", async () => {
    expect(await raceAbort(Promise.resolve(7), new AbortController().signal)).toBe(7);
    await expect(raceAbort(Promise.reject(new Error("boom")), new AbortController().signal)).rejects.toThrow("boom");
  });

  it("rejects with the reason as soon as the signal aborts, even if the promise never settles", async () => {
    const controller = new AbortController();
    const raced = raceAbort(new Promise<never>(() => undefined), controller.signal);
    controller.abort(new Error("stopped"));
    await expect(raced).rejects.toThrow("stopped");
  });

  it("rejects at once for a signal that is already aborted", async () => {
    await expect(raceAbort(Promise.resolve(1), AbortSignal.abort(new Error("too late")))).rejects.toThrow("too late");
  });
});
