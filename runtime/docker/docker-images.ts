import type Docker from "dockerode";
import { AppError } from "../errors/app-error.js";
import type { BuildProgress } from "./container-driver.js";
import { statusOf, translateEngineErrors } from "./engine-errors.js";

/** True when the engine has an image with this tag. */
export function checkImageExists(docker: Docker, tag: string): Promise<boolean> {
  return translateEngineErrors(async () => {
    try {
      await docker.getImage(tag).inspect();
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw error;
    }
  });
}

/** Builds an image from the listed files of a directory, passing each progress line on; fails with the engine's message. */
export async function buildDockerImage(
  docker: Docker,
  contextDir: string,
  files: readonly string[],
  dockerfile: string,
  tag: string,
  onProgress: BuildProgress,
): Promise<void> {
  const stream = await translateEngineErrors(() =>
    docker.buildImage({ context: contextDir, src: [...files] }, { t: tag, dockerfile, rm: true, forcerm: true }),
  );
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null, events: { error?: string; errorDetail?: { message?: string } }[]) => {
        const failed = error?.message ?? events.find((event) => event.error)?.error;
        if (failed) reject(new AppError("internal", `Building the sandbox image ${tag} failed: ${failed}`));
        else resolve();
      },
      (event: { stream?: string; status?: string; error?: string }) => {
        const text = (event.stream ?? event.status ?? event.error ?? "").trimEnd();
        if (text) for (const line of text.split("\n")) onProgress(line);
      },
    );
  });
}
