import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { ContainerDriver, ContainerSpec } from "../../../runtime/docker/container-driver.js";
import { SUITE_PROGRAMS } from "./programs.js";

/** What the suite needs to know about the engine behind the driver. */
export interface ContainerDriverConformanceOptions {
  /** An image the engine has, whose containers offer sh, cat, sleep, printenv, pwd and `id -u`. */
  readonly image: string;
  /** Labels on every container the suite makes (beside its own), so a run that failed can be found and removed. */
  readonly labels: Readonly<Record<string, string>>;
  /** The uid an exec runs as when it names no user (the driver's sandbox user). */
  readonly defaultUid: number;
}

/** A label the suite's cases set to find their own containers among the suite's. */
export const CASE_LABEL = "dev.workcell.conformance.case";

/** What each part of the suite works with: the driver under test, and containers that are removed after each case. */
export interface DriverHarness {
  /** The driver under test, made before the suite's first case. */
  readonly driver: ContainerDriver;
  readonly options: ContainerDriverConformanceOptions;
  /** The containers the current case made; each is removed after the case. */
  readonly made: string[];
  /** A spec for a suite container (the suite's image, labels and main command), with `overrides`. */
  spec(overrides?: Partial<ContainerSpec>): ContainerSpec;
  /** Creates a container, not started, that is removed after the case. */
  create(overrides?: Partial<ContainerSpec>): Promise<string>;
  /** Creates and starts a container that is removed after the case. */
  running(overrides?: Partial<ContainerSpec>): Promise<string>;
}

/**
 * Makes the driver before the suite, removes each case's containers after it, and at the end
 * every container that carries `options.labels`. Call it inside the suite's describe.
 */
export function useDriverHarness(
  makeDriver: () => ContainerDriver | Promise<ContainerDriver>,
  options: ContainerDriverConformanceOptions,
): DriverHarness {
  let driver: ContainerDriver | undefined;
  const harness: DriverHarness = {
    get driver() {
      if (driver === undefined)
        throw new Error("The driver is made in the suite's beforeAll: use it in a case or hook.");
      return driver;
    },
    options,
    made: [],
    spec: (overrides = {}) => ({
      name: `workcell-conformance-${randomBytes(5).toString("hex")}`,
      image: options.image,
      user: "0:0",
      capAdd: [],
      env: ["CONFORMANCE_FROM_SPEC=spec"],
      labels: { ...options.labels },
      workingDir: "/",
      command: [...SUITE_PROGRAMS.keepRunning],
      mounts: [],
      tmpfs: {},
      networkMode: "none",
      memoryMb: 256,
      cpus: 1,
      pids: 128,
      logMaxBytes: 1024 * 1024,
      ...overrides,
    }),
    create: async (overrides = {}) => {
      const id = await harness.driver.create(harness.spec(overrides));
      harness.made.push(id);
      return id;
    },
    running: async (overrides = {}) => {
      const id = await harness.create(overrides);
      await harness.driver.start(id);
      return id;
    },
  };

  beforeAll(async () => {
    driver = await makeDriver();
  });
  afterEach(async () => {
    for (const id of harness.made.splice(0)) await harness.driver.remove(id);
  });
  afterAll(async () => {
    for (const container of (await driver?.list(options.labels)) ?? []) await harness.driver.remove(container.id);
  });
  return harness;
}

/** The stream's text once it ends. */
export function textOf(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.on("data", (chunk: Buffer | string) => (text += chunk.toString()));
    stream.on("end", () => resolve(text));
    stream.on("error", reject);
  });
}
