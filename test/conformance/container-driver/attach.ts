import { beforeAll, describe, expect, it } from "vitest";
import type { ContainerDriver } from "../../../runtime/docker/container-driver.js";
import { textOf, type DriverHarness } from "./harness.js";
import { SUITE_PROGRAMS } from "./programs.js";

/**
 * Attached sessions as a ContainerDriver opens them: streams both ways, a terminal, closing
 * a session, and what happens to sessions and execs when their container stops.
 */
export function describeAttachConformance(harness: DriverHarness): void {
  describe("attached sessions", () => {
    const { create, running } = harness;
    let driver: ContainerDriver;
    beforeAll(() => {
      driver = harness.driver;
    });

    it("streams stdin to the program and its stdout back, and closing stdin ends it with its exit code", async () => {
      const id = await running();
      const session = await driver.attach(id, SUITE_PROGRAMS.cat);
      const output = textOf(session.stdout);
      session.stdin.write("ping\n");
      session.stdin.end("pong\n");
      expect(await session.exited).toBe(0);
      expect(await output).toBe("ping\npong\n");
    });

    it("settles exited with the code of a program that ends by itself, once its output has arrived", async () => {
      const id = await running();
      const session = await driver.attach(id, SUITE_PROGRAMS.output);
      const [stdout, stderr, exitCode] = await Promise.all([
        textOf(session.stdout),
        textOf(session.stderr),
        session.exited,
      ]);
      expect({ stdout, stderr, exitCode }).toEqual({ stdout: "out", stderr: "err", exitCode: 3 });
    });

    it("merges stderr into stdout for a session with a terminal, which can be resized", async () => {
      const id = await running();
      const session = await driver.attach(id, SUITE_PROGRAMS.prompted, { terminal: { columns: 80, rows: 24 } });
      const [stdout, stderr] = [textOf(session.stdout), textOf(session.stderr)];
      await session.resize?.(100, 30);
      session.stdin.write("go\n");
      expect(await session.exited).toBe(3);
      expect(await stdout).toMatch(/outerr$/);
      expect(await stderr).toBe("");
    });

    it("ends the streams and settles exited when the session is closed while its program still runs", async () => {
      const id = await running();
      const session = await driver.attach(id, SUITE_PROGRAMS.longSleep);
      const output = textOf(session.stdout);
      session.close();
      expect(typeof (await session.exited)).toBe("number");
      expect(await output).toBe("");
    });

    it("ends what runs in a container when it stops: a pending exec answers a non-zero code and a session's exited settles", async () => {
      const id = await running();
      const session = await driver.attach(id, SUITE_PROGRAMS.longSleep);
      const output = textOf(session.stdout);
      const pending = driver.exec(id, { argv: SUITE_PROGRAMS.longSleep });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await driver.stop(id, 5);
      expect((await pending).exitCode).not.toBe(0);
      expect(await session.exited).not.toBe(0);
      expect(await output).toBe("");
    });

    it("refuses to attach to a container that is not running or does not exist", async () => {
      const idle = await create();
      await expect(driver.attach(idle, SUITE_PROGRAMS.cat)).rejects.toThrow(/is not running/);
      await driver.remove(idle);
      await expect(driver.attach(idle, SUITE_PROGRAMS.cat)).rejects.toThrow(/no such container/i);
    });
  });
}
