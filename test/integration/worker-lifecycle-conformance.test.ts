import { inject } from "vitest";
import { DockerDriver } from "../../runtime/docker/docker-driver.js";
import { sandboxUser } from "../../runtime/docker/container-spec.js";
import { describeWorkerLifecycle } from "../conformance/worker-lifecycle-conformance.js";

// The same lifecycle the unit tests run on the in-memory driver, on the real engine.
describeWorkerLifecycle("Docker", async () => ({
  driver: new DockerDriver({ sandboxUser: sandboxUser(process.getuid?.() ?? 1000, process.getgid?.() ?? 1000) }),
  image: inject("sandboxImage"),
}));
