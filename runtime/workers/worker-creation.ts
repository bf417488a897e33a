import { realpath } from "node:fs/promises";
import { ApprovalSettingsSchema } from "../approvals/approval.js";
import { isoNow, type Clock } from "../clock/clock.js";
import { resolveResources } from "../docker/container-spec.js";
import { chooseRuntime, runtimeNeedsOf, type RuntimeCatalog } from "../docker/runtime-choice.js";
import { AppError } from "../errors/app-error.js";
import { inspectSourceRepo } from "../git/source-repo.js";
import { admitEnv } from "../permissions/env-grant.js";
import { isInside } from "../permissions/policy.js";
import type { CreateWorkerInput, Worker } from "./worker.js";
import { assertGrantsExist, policyFromInput } from "./worker-policy.js";
import { admitBindSources } from "./bind-sources.js";
import { defaultWorkerName, workerBranch } from "./worker-ids.js";
import { deniedMessage } from "../../contract/sandbox-error.js";

/** What planning a worker needs to know about the control plane. */
export interface CreationContext {
  readonly dataDir: string;
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** The engine's runtimes, for the default rule and to check a named one. */
  readonly runtimes: RuntimeCatalog;
  /** WORKCELL_RUNTIME, when set. */
  readonly configuredRuntime: string | undefined;
  readonly defaultImage: string;
  /** How the worker's diskMb will hold (see Worker.diskEnforcement). */
  readonly diskEnforcement: "image" | "watchdog";
  /** Where createdAt comes from. */
  readonly clock: Clock;
  newId(): Promise<string>;
  workspaceOf(id: string): string;
}

/** What follows from a worker's id: its name (unless one is given), its branch and its workspace. */
export function namesOf(
  id: string,
  givenName: string | undefined,
  workspaceOf: (id: string) => string,
): Pick<Worker, "id" | "name" | "branch" | "workspace"> {
  return {
    id,
    name: givenName ?? defaultWorkerName(id),
    branch: workerBranch(id, givenName),
    workspace: workspaceOf(id),
  };
}

/**
 * Checks a creation request against the policy, the environment and the engine, and
 * describes the worker it would create. Nothing is created here: every refusal (400 or
 * 403) happens before any side effect. Returns the secret values to redact from then on,
 * and why the worker does not run under runsc when the default rule could not pick it.
 */
export async function planWorker(
  input: CreateWorkerInput,
  context: CreationContext,
): Promise<{ worker: Worker; secrets: string[]; runtimeNote: string | undefined }> {
  const policy = policyFromInput(input.permissions, context.dataDir);
  await assertGrantsExist(policy);
  const bindSources = await admitBindSources(policy, context.hostEnv);
  const admitted = admitEnv(policy, input.env ?? {}, context.hostEnv);
  if (admitted.refused.length > 0 && policy.mode === "enforce") {
    throw new AppError("permission_denied", deniedMessage("env", admitted.refused[0] as string), {
      details: { kind: "env", names: admitted.refused },
    });
  }
  const repoReal = await realpath(input.repo).catch(() => input.repo);
  const dataReal = await realpath(context.dataDir).catch(() => context.dataDir);
  if (isInside(repoReal, dataReal)) {
    throw new AppError(
      "invalid_input",
      `repo: "${input.repo}" is inside workcell's data directory (workspaces live there, and the host never runs git in them). Give the path of your own repository.`,
      { details: { field: "repo" } },
    );
  }
  const runtime = chooseRuntime({
    requested: input.runtime,
    configured: context.configuredRuntime,
    needs: runtimeNeedsOf(policy),
    catalog: context.runtimes,
  });
  const source = await inspectSourceRepo(input.repo, input.baseRef ?? "HEAD");
  const now = isoNow(context.clock);
  const worker: Worker = {
    ...namesOf(await context.newId(), input.name, context.workspaceOf),
    status: "starting",
    repo: source.path,
    baseRef: input.baseRef ?? "HEAD",
    baseCommit: source.baseCommit,
    image: input.image ?? context.defaultImage,
    ...(input.model === undefined ? {} : { model: input.model }),
    ...(input.agent === undefined ? {} : { agent: input.agent }),
    runtime: runtime.runtime,
    runtimeSource: runtime.source,
    permissions: policy,
    approvals: ApprovalSettingsSchema.parse(input.approvals ?? {}),
    audit: admitted.refused.map((target) => ({ kind: "env" as const, target })),
    resources: resolveResources(input.resources),
    diskEnforcement: context.diskEnforcement,
    createdAt: now,
    updatedAt: now,
    desired: "running",
    env: admitted.env,
    objectDirs: [...source.objectDirs],
    bindSources,
  };
  const secrets = [
    ...Object.values(input.env ?? {}),
    ...Object.values(admitted.env),
    ...Object.values(input.agent?.env ?? {}),
  ];
  return { worker, secrets, runtimeNote: runtime.note };
}
