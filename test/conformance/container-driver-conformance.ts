import { describe } from "vitest";
import type { ContainerDriver } from "../../runtime/docker/container-driver.js";
import { describeAttachConformance } from "./container-driver/attach.js";
import { describeExecConformance } from "./container-driver/exec.js";
import { useDriverHarness, type ContainerDriverConformanceOptions } from "./container-driver/harness.js";
import { describeLifecycleConformance } from "./container-driver/lifecycle.js";

export type { ContainerDriverConformanceOptions } from "./container-driver/harness.js";
export { SUITE_PROGRAMS } from "./container-driver/programs.js";

/**
 * The behaviour of a ContainerDriver that the runtime relies on, written once and run against
 * every implementation (DockerDriver on a real engine, the in-memory driver): a container's
 * lifecycle and the state inspect and list report, the errors for what does not exist or
 * does not run, one-shot execs (exit code, output, stdin, environment, identity, limits,
 * deadline, abort) and attached sessions (streams, terminal, close, death of the container).
 * Every container it makes carries `options.labels` and is removed after its case.
 */
export function describeContainerDriverConformance(
  name: string,
  makeDriver: () => ContainerDriver | Promise<ContainerDriver>,
  options: ContainerDriverConformanceOptions,
): void {
  describe(`${name} behaves as a ContainerDriver`, () => {
    const harness = useDriverHarness(makeDriver, options);
    describeLifecycleConformance(harness);
    describeExecConformance(harness);
    describeAttachConformance(harness);
  });
}
