// The ContainerDriver conformance suite against DockerDriver on the real engine. Every
// container it makes carries dev.workcell.conformance=true and this run's id, and is removed
// after its case; should a run die midway, remove what it left with
//   docker rm -f $(docker ps -aq --filter label=dev.workcell.conformance=true)
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { sandboxUser } from "../../runtime/docker/container-spec.js";
import { DockerDriver } from "../../runtime/docker/docker-driver.js";
import { describeContainerDriverConformance } from "../conformance/container-driver-conformance.js";

describeContainerDriverConformance("DockerDriver", () => new DockerDriver(), {
  image: inject("sandboxImage"),
  labels: { "dev.workcell.conformance": "true", "dev.workcell.conformance.run": randomBytes(6).toString("hex") },
  defaultUid: sandboxUser(process.getuid?.() ?? 1000, process.getgid?.() ?? 1000).uid,
});
