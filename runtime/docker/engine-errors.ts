import { AppError } from "../errors/app-error.js";

const UNREACHABLE = /ENOENT|ECONNREFUSED|EACCES|connect|socket hang up/i;

/** The HTTP status of an engine's error answer; undefined when the engine did not answer. */
export function statusOf(error: unknown): number | undefined {
  return typeof error === "object" && error !== null ? (error as { statusCode?: number }).statusCode : undefined;
}

/** Runs a Docker call, turning "no engine" into a docker_unavailable error that says how to fix it. */
export async function translateEngineErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (statusOf(error) === undefined && UNREACHABLE.test(String((error as Error)?.message ?? error))) {
      throw dockerUnavailable(error);
    }
    throw error;
  }
}

/** The error for an engine that does not answer, with the fix. */
export function dockerUnavailable(cause: unknown): AppError {
  return new AppError(
    "docker_unavailable",
    "No Docker engine answers. Start one (e.g. 'sudo systemctl start docker', or run 'sudo scripts/ensure-docker.sh' from the workcell checkout, which installs and starts dockerd), or point DOCKER_HOST at a reachable engine.",
    { cause },
  );
}
