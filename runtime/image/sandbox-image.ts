import { createHash } from "node:crypto";
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import type { BuildProgress, ContainerDriver } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";
import { bundleTools, TOOLS_BUNDLE_NAME } from "./bundle-tools.js";

/** The repository name of sandbox images; the tag is a hash of what goes into the image. */
export const SANDBOX_IMAGE_REPOSITORY = "workcell-sandbox";
const DOCKERFILE = "Dockerfile.sandbox";

/** The language server copied into the image (from this package's own dependencies). */
const PYRIGHT_ARCHIVE = "pyright.tar";
/** The source of the helper that runs programs as the sandbox user, compiled in the image. */
const SANDBOX_USER_SOURCE = "sandbox-user.c";

/** The tag for an image built from this Dockerfile, bundle and extras: it changes whenever any does. */
export function computeImageTag(dockerfile: string | Buffer, bundle: string | Buffer, ...extras: string[]): string {
  const hash = createHash("sha256").update(dockerfile).update("\0").update(bundle);
  for (const extra of extras) hash.update("\0").update(extra);
  return `${SANDBOX_IMAGE_REPOSITORY}:${hash.digest("hex").slice(0, 16)}`;
}

/** The installed pyright package's directory and version. */
async function pyrightPackage(projectRoot: string): Promise<{ directory: string; version: string }> {
  const directory = path.join(projectRoot, "node_modules", "pyright");
  try {
    const { version } = JSON.parse(await readFile(path.join(directory, "package.json"), "utf8")) as { version: string };
    return { directory, version };
  } catch {
    throw new AppError("internal", "The pyright package is missing from node_modules; run npm install first.");
  }
}

/** The base image the Dockerfile starts FROM. */
export function parseBaseImage(dockerfile: string): string {
  const from = /^FROM\s+(\S+)/m.exec(dockerfile)?.[1];
  if (from === undefined) throw new AppError("internal", `${DOCKERFILE} has no FROM line.`);
  return from;
}

/**
 * Makes sure the sandbox image for the current sources exists: bundles the in-container
 * tools, computes the tag, and if the engine lacks it, ensures the base image (pulling or
 * building it from Debian's packages) and builds it, reporting progress line by line.
 */
export async function ensureSandboxImage(
  driver: ContainerDriver,
  projectRoot: string,
  onProgress: BuildProgress,
): Promise<string> {
  const bundlePath = await bundleTools(projectRoot);
  const dockerfilePath = path.join(projectRoot, DOCKERFILE);
  const helperPath = path.join(projectRoot, "sandbox-images", SANDBOX_USER_SOURCE);
  const [dockerfile, bundle, helper] = await Promise.all([
    readFile(dockerfilePath),
    readFile(bundlePath),
    readFile(helperPath, "utf8"),
  ]);
  const pyright = await pyrightPackage(projectRoot);
  const tag = computeImageTag(dockerfile, bundle, `pyright@${pyright.version}`, helper);
  if (await driver.imageExists(tag)) return tag;

  const base = parseBaseImage(dockerfile.toString("utf8"));
  if (!(await driver.imageExists(base))) {
    onProgress(`Base image ${base} is missing; getting it (pull, or a local build from Debian's packages)...`);
    const script = path.join(projectRoot, "sandbox-images", "build-base.sh");
    const run = execa("bash", [script, base], { reject: false, all: true });
    run.all?.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n")) if (line.trim()) onProgress(line);
    });
    const result = await run;
    if (result.exitCode !== 0)
      throw new AppError(
        "internal",
        `Could not get the base image ${base}; see the lines above. Fix the cause and start again.`,
      );
  }

  onProgress(`Building the sandbox image ${tag} (first time only; takes a few minutes)...`);
  const context = await mkdtemp(path.join(tmpdir(), "workcell-image-"));
  try {
    await copyFile(dockerfilePath, path.join(context, DOCKERFILE));
    await copyFile(bundlePath, path.join(context, TOOLS_BUNDLE_NAME));
    await copyFile(helperPath, path.join(context, SANDBOX_USER_SOURCE));
    await execa("tar", [
      "-C",
      path.dirname(pyright.directory),
      "--exclude=*.map",
      "-cf",
      path.join(context, PYRIGHT_ARCHIVE),
      "pyright",
    ]);
    await driver.buildImage(
      context,
      [DOCKERFILE, TOOLS_BUNDLE_NAME, SANDBOX_USER_SOURCE, PYRIGHT_ARCHIVE],
      DOCKERFILE,
      tag,
      onProgress,
    );
  } finally {
    await rm(context, { recursive: true, force: true });
  }
  onProgress(`Built ${tag}.`);
  return tag;
}
