import path from "node:path";
import { AppError } from "../errors/app-error.js";
import type { Policy } from "../permissions/policy.js";
import type { EngineInfo } from "./container-driver.js";
import { usesEgressProxy } from "./container-spec.js";

/** The runtime workers use by default when the engine offers it: gVisor, a user-space kernel. */
export const PREFERRED_RUNTIME = "runsc";

/** An OCI runtime as the engine registered it. */
export interface EngineRuntime {
  readonly name: string;
  readonly path: string;
  readonly args: readonly string[];
}

/** The engine's runtimes and the one it uses when a container names none. */
export interface RuntimeCatalog {
  readonly runtimes: readonly EngineRuntime[];
  readonly engineDefault: string;
}

/** What a worker's policy needs from its runtime. */
export interface RuntimeNeeds {
  /** `net: true`: the container joins the engine's bridge. */
  readonly bridgedNetwork: boolean;
  /** The egress proxy: the container connects to a Unix socket mounted from the host. */
  readonly hostSocket: boolean;
}

/** Where a worker's runtime came from: its creation request, WORKCELL_RUNTIME, or the default rule. */
export type RuntimeSource = "requested" | "configured" | "default";

/** The runtime a worker runs under, why, and (for a default that is not runsc) what kept runsc out. */
export interface RuntimeChoice {
  readonly runtime: string;
  readonly source: RuntimeSource;
  readonly note?: string;
}

/** The engine's runtimes as the driver reported them. */
export function catalogOf(info: EngineInfo): RuntimeCatalog {
  const details = info.runtimeDetails ?? {};
  return {
    runtimes: info.runtimes.map((name) => ({
      name,
      path: details[name]?.path ?? name,
      args: details[name]?.args ?? [],
    })),
    engineDefault: info.defaultRuntime ?? "runc",
  };
}

/** What the policy needs from the runtime (network mode and the egress socket). */
export function runtimeNeedsOf(policy: Policy): RuntimeNeeds {
  return { bridgedNetwork: policy.net === true, hostSocket: usesEgressProxy(policy) };
}

/** Whether the runtime is gVisor (by name or by the binary it runs). */
export function isGvisor(runtime: EngineRuntime): boolean {
  return runtime.name === PREFERRED_RUNTIME || path.basename(runtime.path) === PREFERRED_RUNTIME;
}

/** Whether the engine's runtime of that name is gVisor (a name the catalog lacks counts when it is runsc's). */
export function isGvisorRuntime(catalog: RuntimeCatalog, name: string | undefined): boolean {
  if (name === undefined) return false;
  const runtime = catalog.runtimes.find((candidate) => candidate.name === name);
  return runtime === undefined ? name === PREFERRED_RUNTIME : isGvisor(runtime);
}

/** The last value the runtime's registered arguments give a `--name` flag (`--name=value` or `--name value`). */
function flagValue(args: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  args.forEach((arg, index) => {
    if (arg === `--${name}` || arg === `-${name}`) value = args[index + 1];
    else if (arg.startsWith(`--${name}=`) || arg.startsWith(`-${name}=`)) value = arg.slice(arg.indexOf("=") + 1);
  });
  return value;
}

/**
 * Why the runtime cannot carry a worker with these needs, or undefined when it can. Only
 * gVisor has such limits: registered with `--network=none` it gives containers no network
 * device, and unless `--host-uds=open` (or `all`) it refuses connections to host sockets.
 */
export function runtimeMisfit(runtime: EngineRuntime, needs: RuntimeNeeds): string | undefined {
  if (!isGvisor(runtime)) return undefined;
  if (needs.bridgedNetwork && flagValue(runtime.args, "network") === "none") {
    return `the engine registered ${runtime.name} with --network=none, so a worker with full network (net: true) would have none`;
  }
  const legacyUds = runtime.args.includes("--fsgofer-host-uds") ? "all" : "none";
  const hostUds = flagValue(runtime.args, "host-uds") ?? legacyUds;
  if (needs.hostSocket && hostUds !== "open" && hostUds !== "all") {
    return `the engine registered ${runtime.name} without --host-uds=open, so the worker could not reach its egress proxy through the mounted socket`;
  }
  return undefined;
}

/** The runtimes by name, for messages. */
function listNames(catalog: RuntimeCatalog): string {
  return catalog.runtimes.map((runtime) => runtime.name).join(", ") || "none listed";
}

/** Refuses a WORKCELL_RUNTIME the engine does not offer (at start, before anything is served). */
export function assertConfiguredRuntime(configured: string | undefined, catalog: RuntimeCatalog): void {
  if (configured === undefined || catalog.runtimes.some((runtime) => runtime.name === configured)) return;
  throw new AppError(
    "invalid_input",
    `WORKCELL_RUNTIME: the Docker engine has no runtime "${configured}" (it has ${listNames(catalog)}). Register it with the engine (scripts/ensure-docker.sh registers gVisor's runsc), or unset WORKCELL_RUNTIME to use runsc when offered and the engine's default otherwise.`,
  );
}

/**
 * The runtime for a worker: the one its request names, else WORKCELL_RUNTIME, else runsc
 * when the engine offers it and it can carry the worker's policy, else the engine's default.
 * A named runtime must exist and fit the policy; otherwise the error says how to fix it.
 */
export function chooseRuntime(input: {
  requested?: string | undefined;
  configured?: string | undefined;
  needs: RuntimeNeeds;
  catalog: RuntimeCatalog;
}): RuntimeChoice {
  const { requested, configured, needs, catalog } = input;
  const named = requested ?? configured;
  if (named !== undefined) {
    const field = requested !== undefined ? "runtime" : "WORKCELL_RUNTIME";
    const found = catalog.runtimes.find((runtime) => runtime.name === named);
    if (found === undefined) {
      throw new AppError(
        "invalid_input",
        `${field}: the Docker engine has no runtime "${named}" (it has ${listNames(catalog)}). Register it with the engine (scripts/ensure-docker.sh registers gVisor's runsc), or omit it.`,
        {
          details: { field },
        },
      );
    }
    const misfit = runtimeMisfit(found, needs);
    if (misfit !== undefined) {
      throw new AppError(
        "invalid_input",
        `${field}: "${named}" cannot run this worker: ${misfit}. Register ${named} with the flag (scripts/ensure-docker.sh does), or choose another runtime such as runc.`,
        {
          details: { field },
        },
      );
    }
    return { runtime: named, source: requested !== undefined ? "requested" : "configured" };
  }
  const preferred = catalog.runtimes.find((runtime) => runtime.name === PREFERRED_RUNTIME);
  if (preferred === undefined)
    return { runtime: catalog.engineDefault, source: "default", note: `the engine offers no ${PREFERRED_RUNTIME}` };
  const misfit = runtimeMisfit(preferred, needs);
  if (misfit === undefined) return { runtime: PREFERRED_RUNTIME, source: "default" };
  const fallback =
    catalog.engineDefault !== preferred.name
      ? catalog.engineDefault
      : (catalog.runtimes.find((runtime) => !isGvisor(runtime))?.name ?? catalog.engineDefault);
  return { runtime: fallback, source: "default", note: misfit };
}

/** What GET /health says about runtimes: what a default worker runs under, what is offered, and which policies run elsewhere. */
export interface RuntimeSummary {
  readonly runtime: string;
  readonly source: RuntimeSource;
  readonly offered: readonly string[];
  /** Policies that do not get `runtime`, and why (empty when every policy does). */
  readonly exceptions: readonly string[];
}

/** Summarises the runtime rule for the default policy and for the two policies gVisor may not carry. */
export function summarizeRuntimes(catalog: RuntimeCatalog, configured: string | undefined): RuntimeSummary {
  const offered = catalog.runtimes.map((runtime) => runtime.name);
  let base: RuntimeChoice;
  try {
    base = chooseRuntime({ configured, needs: { bridgedNetwork: false, hostSocket: false }, catalog });
  } catch (error) {
    // The engine lost the configured runtime after start: say so rather than fail.
    return {
      runtime: configured ?? catalog.engineDefault,
      source: "configured",
      offered,
      exceptions: [`every worker is refused: ${error instanceof Error ? error.message : String(error)}`],
    };
  }
  const cases: [string, RuntimeNeeds][] = [
    ["workers with net: true", { bridgedNetwork: true, hostSocket: false }],
    [
      "workers behind the egress proxy (a net host list, prompts or audit mode)",
      { bridgedNetwork: false, hostSocket: true },
    ],
  ];
  const exceptions = cases.flatMap(([who, needs]) => {
    try {
      const choice = chooseRuntime({ configured, needs, catalog });
      return choice.runtime === base.runtime
        ? []
        : [`${who} run under ${choice.runtime}: ${choice.note ?? "the default rule chose it"}`];
    } catch (error) {
      return [`${who} are refused: ${error instanceof Error ? error.message : String(error)}`];
    }
  });
  return { runtime: base.runtime, source: base.source, offered, exceptions };
}
