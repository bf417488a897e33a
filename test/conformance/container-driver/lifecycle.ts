import { beforeAll, describe, expect, it } from "vitest";
import type { ContainerDriver, ContainerState } from "../../../runtime/docker/container-driver.js";
import { CASE_LABEL, type DriverHarness } from "./harness.js";
import { SUITE_PROGRAMS } from "./programs.js";

const MISSING_IMAGE = "workcell-conformance-missing:none";

/**
 * A container's lifecycle as a ContainerDriver reports it: create, start, stop, remove, the
 * state inspect and list answer, and the errors for what does not exist or cannot be made.
 */
export function describeLifecycleConformance(harness: DriverHarness): void {
  describe("container lifecycle", () => {
    const { made, spec, create, running, options } = harness;
    let driver: ContainerDriver;
    beforeAll(() => {
      driver = harness.driver;
    });

    it("creates a container that is not running yet and reports its name and labels", async () => {
      const wanted = spec({ labels: { ...options.labels, [CASE_LABEL]: "created" } });
      const id = await driver.create(wanted);
      made.push(id);
      expect(await driver.inspect(id)).toMatchObject({
        id,
        name: wanted.name,
        running: false,
        status: "created",
        exitCode: 0,
        oomKilled: false,
        labels: wanted.labels,
      });
    });

    it("starts a container, and starting it again while it runs changes nothing", async () => {
      const id = await running();
      await driver.start(id);
      expect(await driver.inspect(id)).toMatchObject({ running: true, status: "running" });
    });

    it("stops a running container, which then reports exited with a non-zero code; stopping it again does nothing", async () => {
      const id = await running();
      await driver.stop(id, 5);
      const stopped = await driver.inspect(id);
      expect(stopped).toMatchObject({ running: false, status: "exited" });
      expect(stopped?.exitCode).not.toBe(0);
      await driver.stop(id, 5);
      expect(await driver.inspect(id)).toEqual(stopped);
    });

    it("leaves a container that never started as created when it is stopped", async () => {
      const id = await create();
      await driver.stop(id, 5);
      expect(await driver.inspect(id)).toMatchObject({ running: false, status: "created" });
    });

    it("starts a stopped container again, which then reports running with exit code 0", async () => {
      const id = await running();
      await driver.stop(id, 5);
      await driver.start(id);
      expect(await driver.inspect(id)).toMatchObject({ running: true, status: "running", exitCode: 0 });
    });

    it("reports a container whose main program ends by itself as exited with that program's code", async () => {
      const id = await running({ command: [...SUITE_PROGRAMS.exitSeven] });
      const state = await waitFor(
        () => driver.inspect(id),
        (candidate) => candidate?.running === false,
      );
      expect(state).toMatchObject({ running: false, status: "exited", exitCode: 7 });
    });

    it("removes a running container: inspect answers undefined, list leaves it out, and removing it again does nothing", async () => {
      const id = await running();
      await driver.remove(id);
      expect(await driver.inspect(id)).toBeUndefined();
      expect((await driver.list(options.labels)).map((container) => container.id)).not.toContain(id);
      await expect(driver.remove(id)).resolves.toBeUndefined();
    });

    it("answers undefined for a container that does not exist, and stopping or removing it does nothing", async () => {
      const id = await create();
      await driver.remove(id);
      expect(await driver.inspect(id)).toBeUndefined();
      await expect(driver.stop(id, 5)).resolves.toBeUndefined();
      await expect(driver.remove(id)).resolves.toBeUndefined();
    });

    it("refuses to start a container that does not exist", async () => {
      const id = await create();
      await driver.remove(id);
      await expect(driver.start(id)).rejects.toThrow(/no such container/i);
    });

    it("refuses a second container with a name that is taken, even by one that is not running", async () => {
      const taken = spec();
      made.push(await driver.create(taken));
      await expect(create({ name: taken.name })).rejects.toThrow(/already in use/);
    });

    it("refuses a container from an image the engine does not have, and says which", async () => {
      await expect(create({ image: MISSING_IMAGE })).rejects.toThrow(
        new RegExp(`no such image.*${MISSING_IMAGE}`, "i"),
      );
    });

    it("refuses a container that names an OCI runtime the engine does not offer", async () => {
      await expect(create({ runtime: "workcell-conformance-no-runtime" })).rejects.toThrow(/unknown runtime/i);
    });

    it("lists the containers that carry every label asked for, running or not, with their state", async () => {
      const a = await create({ labels: { ...options.labels, [CASE_LABEL]: "a" } });
      const b = await running({ labels: { ...options.labels, [CASE_LABEL]: "b" } });
      const onlyA = await driver.list({ ...options.labels, [CASE_LABEL]: "a" });
      expect(onlyA.map((container) => container.id)).toEqual([a]);
      expect(onlyA[0]).toMatchObject({ running: false, status: "created", labels: { [CASE_LABEL]: "a" } });
      const both = await driver.list(options.labels);
      expect(both.map((container) => container.id)).toEqual(expect.arrayContaining([a, b]));
      expect(both.find((container) => container.id === b)).toMatchObject({ running: true, status: "running" });
      expect(await driver.list({ ...options.labels, [CASE_LABEL]: "none" })).toEqual([]);
    });

    it("knows which images it has", async () => {
      expect(await driver.imageExists(options.image)).toBe(true);
      expect(await driver.imageExists(MISSING_IMAGE)).toBe(false);
    });
  });
}

/** Reads `read` until `done` accepts it (the engine reports a dying container within a few seconds). */
async function waitFor(
  read: () => Promise<ContainerState | undefined>,
  done: (state: ContainerState | undefined) => boolean,
): Promise<ContainerState | undefined> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const state = await read();
    if (done(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return read();
}
