import { execFileSync } from "node:child_process";
import type { TestProject } from "vitest/node";
import { DockerDriver } from "../../runtime/docker/docker-driver.js";
import { ensureSandboxImage } from "../../runtime/image/sandbox-image.js";
import { PROJECT_ROOT } from "../../server/control-plane.js";

declare module "vitest" {
  export interface ProvidedContext {
    sandboxImage: string;
  }
}

/**
 * Integration tests run on a real Docker engine. Without one they fail here, once, with
 * the way to get one; they never skip silently.
 */
export default async function setup(project: TestProject): Promise<void> {
  const driver = new DockerDriver();
  try {
    await driver.info();
  } catch (error) {
    throw new Error(
      "The integration tests need a Docker engine and none answers. Start one: as root, run 'bash scripts/ensure-docker.sh' " +
        "(installs docker.io from Debian's packages and starts dockerd), or 'sudo systemctl start docker', or set DOCKER_HOST. " +
        `Cause: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const image = await ensureSandboxImage(driver, PROJECT_ROOT, (line) =>
    process.stderr.write(`[sandbox image] ${line}\n`),
  );
  // bin/workcell runs the client commands from this bundle: build it from the current sources.
  execFileSync("npm", ["run", "-s", "build:cli"], { cwd: PROJECT_ROOT, stdio: "inherit" });
  project.provide("sandboxImage", image);
}
