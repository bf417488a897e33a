import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContainerDriver } from "../../../runtime/docker/container-driver.js";
import { AppError } from "../../../runtime/errors/app-error.js";
import { CASE_LABEL, textOf, type DriverHarness } from "./harness.js";
import { SUITE_PROGRAMS } from "./programs.js";

/**
 * One-shot execs as a ContainerDriver runs them: exit code, output, stdin, environment,
 * identity, output limits, deadline and abort, and refusal where nothing runs.
 */
export function describeExecConformance(harness: DriverHarness): void {
  describe("one-shot exec", () => {
    const { spec, create, options } = harness;
    let driver: ContainerDriver;
    beforeAll(() => {
      driver = harness.driver;
    });

    let shared: string;
    beforeAll(async () => {
      shared = await driver.create(spec({ labels: { ...options.labels, [CASE_LABEL]: "exec" } }));
      await driver.start(shared);
    });
    afterAll(async () => {
      await driver.remove(shared);
    });

    it("answers the program's exit code, with its stdout and stderr apart", async () => {
      const result = await driver.exec(shared, { argv: SUITE_PROGRAMS.output });
      expect({
        exitCode: result.exitCode,
        stdout: result.stdout.toString(),
        stderr: result.stderr.toString(),
      }).toEqual({ exitCode: 3, stdout: "out", stderr: "err" });
    });

    it("hands the program the stdin it was given", async () => {
      const result = await driver.exec(shared, { argv: SUITE_PROGRAMS.cat, stdin: Buffer.from("hello\nworld") });
      expect(result.stdout.toString()).toBe("hello\nworld");
      expect(result.exitCode).toBe(0);
    });

    it("gives the program the container's variables and the exec's own", async () => {
      const result = await driver.exec(shared, {
        argv: SUITE_PROGRAMS.printenv,
        env: ["CONFORMANCE_FROM_EXEC=exec"],
      });
      expect(result.stdout.toString()).toBe("spec\nexec\n");
    });

    it("runs the program as the sandbox user in the container's working directory unless told otherwise", async () => {
      expect((await driver.exec(shared, { argv: SUITE_PROGRAMS.uid })).stdout.toString().trim()).toBe(
        String(options.defaultUid),
      );
      expect((await driver.exec(shared, { argv: SUITE_PROGRAMS.pwd })).stdout.toString().trim()).toBe("/");
      expect((await driver.exec(shared, { argv: SUITE_PROGRAMS.uid, user: "0:0" })).stdout.toString().trim()).toBe("0");
      expect(
        (await driver.exec(shared, { argv: SUITE_PROGRAMS.pwd, workingDir: "/tmp" })).stdout.toString().trim(),
      ).toBe("/tmp");
    });

    it("writes stdout to the sink it is given instead of buffering it", async () => {
      const sink = new PassThrough();
      const received = textOf(sink);
      const result = await driver.exec(shared, {
        argv: SUITE_PROGRAMS.cat,
        stdin: Buffer.from("to the sink"),
        stdoutSink: sink,
      });
      expect(await received).toBe("to the sink");
      expect(result.stdout.length).toBe(0);
    });

    it("keeps no more than maxBufferBytes of output", async () => {
      const result = await driver.exec(shared, {
        argv: SUITE_PROGRAMS.cat,
        stdin: Buffer.alloc(4096, "a"),
        maxBufferBytes: 10,
      });
      expect(result.stdout.toString()).toBe("a".repeat(10));
    });

    it("kills a program that outlives its deadline and fails with timeout", async () => {
      const startedMs = Date.now();
      const error = await driver.exec(shared, { argv: SUITE_PROGRAMS.longSleep, timeoutMs: 1_000 }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("timeout");
      expect(Date.now() - startedMs).toBeLessThan(15_000);
    });

    it("stops waiting when the caller aborts, and fails with conflict", async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("the caller gave up")), 100);
      const error = await driver.exec(shared, { argv: SUITE_PROGRAMS.longSleep, signal: controller.signal }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({
        code: "conflict",
        message: expect.stringMatching(/interrupted: the caller gave up/),
      });
    });

    it("refuses to run a program in a container that is not running or does not exist", async () => {
      const idle = await create();
      await expect(driver.exec(idle, { argv: SUITE_PROGRAMS.pwd })).rejects.toThrow(/is not running/);
      await driver.remove(idle);
      await expect(driver.exec(idle, { argv: SUITE_PROGRAMS.pwd })).rejects.toThrow(/no such container/i);
    });
  });
}
