import { chmod, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error.js";
import {
  denyOverlays,
  mountsFor,
  normalizePolicy,
  PolicyError,
  type PermissionsInput,
  type Policy,
} from "../permissions/policy.js";
import { POLICY_FILE_NAME } from "../../contract/container.js";
import { toPolicyFile, type PolicyApprovals } from "../../contract/policy.js";

/** Normalises a requested policy, turning a PolicyError into a 400 that names the field. */
export function policyFromInput(input: PermissionsInput | undefined, dataDir: string): Policy {
  try {
    return normalizePolicy(input, { dataDir });
  } catch (error) {
    if (error instanceof PolicyError)
      throw new AppError("invalid_input", error.message, { details: { field: `permissions.${error.field}` } });
    throw error;
  }
}

/** A stored policy as the input that would produce it (for merging a PATCH over it). */
export function toPermissionsInput(policy: Policy): PermissionsInput {
  return { ...policy, deny: { ...policy.deny } };
}

/** Refuses grants of host paths that do not exist (Docker would silently create them). */
export async function assertGrantsExist(policy: Policy): Promise<void> {
  for (const mount of mountsFor(policy)) {
    const exists = await stat(mount.source).then(
      () => true,
      () => false,
    );
    if (!exists) {
      const field = mount.readOnly ? "read" : "write";
      throw new AppError(
        "invalid_input",
        `permissions.${field}: "${mount.source}" does not exist on the control plane's host. Create it first or remove it from the grant.`,
        {
          details: { field: `permissions.${field}` },
        },
      );
    }
  }
}

/** Denied paths inside mounted grants that exist on the host, with their kind (missing ones are left to the tools). */
export async function findHiddenPaths(policy: Policy): Promise<{ path: string; directory: boolean }[]> {
  const found: { path: string; directory: boolean }[] = [];
  for (const hidden of denyOverlays(policy).hidden) {
    const stats = await stat(hidden).catch(() => undefined);
    if (stats !== undefined) found.push({ path: hidden, directory: stats.isDirectory() });
  }
  return found;
}

/**
 * Writes the policy where the worker's tools read it (the control dir, mounted read-only):
 * world-readable, replaced atomically so a tool never reads half a file.
 */
export async function writePolicyFile(runDir: string, policy: Policy, approvals: PolicyApprovals): Promise<void> {
  const target = path.join(runDir, POLICY_FILE_NAME);
  const content = JSON.stringify(toPolicyFile(policy, approvals));
  // Unchanged (a pool slot claimed with the policy it started with): left alone, so the tools'
  // copy, read before the claim, stays current and the first call does not read it again.
  if ((await readFile(target, "utf8").catch(() => undefined)) === content) return;
  await mkdir(runDir, { recursive: true });
  await chmod(runDir, 0o755);
  const temporary = `${target}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode: 0o644 });
  await rename(temporary, target);
}
