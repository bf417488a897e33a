import type { Config } from "../../runtime/config/config.js";
import type { EngineInfo } from "../../runtime/docker/container-driver.js";
import {
  assertConfiguredRuntime,
  catalogOf,
  chooseRuntime,
  PREFERRED_RUNTIME,
  runtimeNeedsOf,
  summarizeRuntimes,
  type RuntimeCatalog,
  type RuntimeChoice,
  type RuntimeSummary,
} from "../../runtime/docker/runtime-choice.js";
import { defaultPolicy } from "../../runtime/permissions/policy.js";
import type { Logger } from "../logger.js";

/** The engine's runtimes, the one a default-policy worker runs under, and what /health reports of them. */
export interface WorkerRuntimes {
  readonly catalog: RuntimeCatalog;
  readonly defaultRuntime: RuntimeChoice;
  readonly summary: RuntimeSummary;
}

/**
 * Checks WORKCELL_RUNTIME against the engine's runtimes (throws when the engine lacks it) and
 * chooses the default policy's runtime; warns when that is not gVisor, and for each exception.
 */
export function chooseWorkerRuntimes(
  engine: EngineInfo,
  configured: Config["runtime"],
  logger: Logger,
): WorkerRuntimes {
  const catalog = catalogOf(engine);
  assertConfiguredRuntime(configured, catalog);
  const defaultRuntime = chooseRuntime({ configured, needs: runtimeNeedsOf(defaultPolicy()), catalog });
  const summary = summarizeRuntimes(catalog, configured);
  if (defaultRuntime.runtime !== PREFERRED_RUNTIME) {
    logger.warn(
      `workers run under ${defaultRuntime.runtime}, not gVisor (${defaultRuntime.source === "configured" ? "WORKCELL_RUNTIME" : defaultRuntime.note}); scripts/ensure-docker.sh installs and registers runsc`,
    );
  }
  for (const exception of summary.exceptions) logger.warn(exception);
  return { catalog, defaultRuntime, summary };
}
