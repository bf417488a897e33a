import type { Policy } from "./policy.js";

/** Variables of the control plane itself never enter a container, whatever the grant. */
const NEVER_PASSED = /^WORKCELL_/;

/** The env a container gets, and the names the policy did not allow. */
export interface EnvAdmission {
  env: Record<string, string>;
  refused: string[];
}

function granted(policy: Policy, name: string): boolean {
  if (NEVER_PASSED.test(name) || policy.deny.env.includes(name)) return false;
  return policy.env === true || policy.env.includes(name);
}

/**
 * Admits requested env vars by name; names granted in a list but not given in the request
 * are taken from the control plane's own environment when present (never with `env: true`,
 * never WORKCELL_* variables). In audit mode refused names are still passed. Pure.
 */
export function admitEnv(
  policy: Policy,
  requested: Readonly<Record<string, string>>,
  hostEnv: Readonly<Record<string, string | undefined>>,
): EnvAdmission {
  const env: Record<string, string> = {};
  const refused: string[] = [];
  for (const [name, value] of Object.entries(requested)) {
    if (granted(policy, name)) env[name] = value;
    else {
      refused.push(name);
      if (policy.mode === "audit" && !NEVER_PASSED.test(name)) env[name] = value;
    }
  }
  if (Array.isArray(policy.env)) {
    for (const name of policy.env) {
      const value = hostEnv[name];
      if (!(name in env) && value !== undefined && granted(policy, name)) env[name] = value;
    }
  }
  return { env, refused };
}
