import path from "node:path";
import { z } from "zod";
import { formatHostPattern, parseHostPattern } from "../../contract/host-pattern.js";
import { defaultPolicy, isInside, type Policy } from "../../contract/policy.js";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROGRAM = /^[^\s/\0]+$|^\/[^\0]+$/;

const pathList = z.array(z.string().min(1).max(4096)).max(100);
const grant = <T extends z.ZodTypeAny>(list: T) => z.union([z.literal(true), list]);

/** The permissions a client asks for when creating a worker (and when changing its policy). */
export const PermissionsInputSchema = z
  .object({
    read: grant(pathList)
      .optional()
      .describe(
        "true (file tools may read anywhere in the container) or host paths mounted read-only at the same path",
      ),
    write: grant(pathList)
      .optional()
      .describe("true (file tools may write anywhere writable in the container) or host paths mounted read-write"),
    net: z
      .union([z.boolean(), z.array(z.string().min(1).max(300)).max(100)])
      .optional()
      .describe('false, true (bridged network) or hosts: "host", "host:port", "*.example.com", "10.1.2.3:5432"'),
    run: grant(
      z
        .array(
          z.string().min(1).max(4096).regex(PROGRAM, "must be a program name (git) or an absolute path (/usr/bin/git)"),
        )
        .max(200),
    )
      .optional()
      .describe("true or the programs shell/exec/start_process may start"),
    env: grant(z.array(z.string().regex(ENV_NAME, "env names must match [A-Za-z_][A-Za-z0-9_]*")).max(200))
      .optional()
      .describe("true or the names of env vars that may enter the container"),
    deny: z
      .object({
        read: pathList.optional(),
        write: pathList.optional(),
        net: z.array(z.string().min(1).max(300)).max(100).optional(),
        run: z.array(z.string().min(1).max(4096)).max(200).optional(),
        env: z.array(z.string().regex(ENV_NAME)).max(200).optional(),
      })
      .strict()
      .optional()
      .describe("Entries that are refused even when an allow covers them"),
    prompt: z.boolean().optional().describe("Ask a human instead of refusing"),
    mode: z.enum(["enforce", "audit"]).optional().describe("audit: allow everything, record what enforce would refuse"),
  })
  .strict();
export type PermissionsInput = z.infer<typeof PermissionsInputSchema>;

// The stored policy and its defaults are the contract's: the sandbox's tools read the same shape.
export { defaultPolicy, isInside, PolicySchema, type Policy } from "../../contract/policy.js";

/** Why a policy was refused: the field and a message that says how to fix it. */
export class PolicyError extends Error {
  override readonly name = "PolicyError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`permissions.${field}: ${message}`);
  }
}

/** Container paths a host path may not be mounted over. */
const RESERVED_TARGETS = [
  "/proc",
  "/sys",
  "/dev",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/boot",
  "/opt/workcell",
  "/run/workcell",
  "/workspace",
  "/home/agent",
  "/var/lib/docker",
  "/run/docker",
  "/run/containerd",
];

/** Checks one host path grant; returns it normalised. */
function normalizeHostPath(raw: string, field: string, dataDir: string): string {
  if (!path.isAbsolute(raw))
    throw new PolicyError(field, `"${raw}" is relative; give an absolute host path such as /srv/data.`);
  if (raw.includes("\0")) throw new PolicyError(field, "paths must not contain NUL bytes.");
  const normalized = path.resolve(raw);
  if (normalized === "/")
    throw new PolicyError(field, `"/" would expose the whole host; grant the directories the worker needs.`);
  if (/docker\.sock|containerd\.sock|podman\.sock/.test(normalized))
    throw new PolicyError(field, `"${raw}" is a container engine socket; granting it would give the worker the host.`);
  if (isInside(normalized, dataDir) || isInside(dataDir, normalized)) {
    throw new PolicyError(
      field,
      `"${raw}" contains or is inside workcell's data directory (${dataDir}), which holds the token and every workspace.`,
    );
  }
  const reserved = RESERVED_TARGETS.find((target) => isInside(normalized, target));
  if (reserved !== undefined)
    throw new PolicyError(
      field,
      `"${raw}" would be mounted over the sandbox's own ${reserved}; copy what is needed elsewhere and grant that path.`,
    );
  const covered = RESERVED_TARGETS.find((target) => isInside(target, normalized));
  if (covered !== undefined)
    throw new PolicyError(
      field,
      `"${raw}" contains ${covered}, which the sandbox needs for itself (or which belongs to the container engine); grant the directories below it that the worker needs.`,
    );
  return normalized;
}

function normalizeHosts(list: readonly string[], field: string): string[] {
  return [
    ...new Set(
      list.map((raw) => {
        const parsed = parseHostPattern(raw);
        if (typeof parsed === "string") throw new PolicyError(field, parsed);
        return formatHostPattern(parsed);
      }),
    ),
  ];
}

const unique = (list: readonly string[]) => [...new Set(list)];

/**
 * Validates and normalises a requested policy against the defaults. Throws a PolicyError
 * naming the field for relative paths, "/", engine sockets, the data dir, malformed hosts,
 * and denies that leave a grant with nothing usable. Pure (no filesystem access).
 */
export function normalizePolicy(input: PermissionsInput | undefined, options: { dataDir: string }): Policy {
  const base = defaultPolicy();
  if (input === undefined) return base;
  const paths = (list: true | string[] | undefined, field: string): true | string[] =>
    list === undefined
      ? []
      : list === true
        ? true
        : unique(list.map((raw) => normalizeHostPath(raw, field, options.dataDir)));
  const denyPaths = (list: string[] | undefined, field: string) =>
    unique(
      (list ?? []).map((raw) => {
        if (!path.isAbsolute(raw)) throw new PolicyError(field, `"${raw}" is relative; give an absolute path.`);
        return path.resolve(raw);
      }),
    );
  const policy: Policy = {
    read: paths(input.read, "read"),
    write: paths(input.write, "write"),
    net:
      input.net === undefined ? false : typeof input.net === "boolean" ? input.net : normalizeHosts(input.net, "net"),
    run: input.run === undefined ? true : input.run === true ? true : unique(input.run),
    env: input.env === undefined ? [] : input.env === true ? true : unique(input.env),
    deny: {
      read: denyPaths(input.deny?.read, "deny.read"),
      write: denyPaths(input.deny?.write, "deny.write"),
      net: normalizeHosts(input.deny?.net ?? [], "deny.net"),
      run: unique(input.deny?.run ?? []),
      env: unique(input.deny?.env ?? []),
    },
    prompt: input.prompt ?? false,
    mode: input.mode ?? "enforce",
  };
  assertSomethingLeft(policy);
  return policy;
}

function assertSomethingLeft(policy: Policy): void {
  const emptied = (
    allowed: true | boolean | string[],
    denied: string[],
    covers: (deny: string, allow: string) => boolean,
  ) =>
    Array.isArray(allowed) &&
    allowed.length > 0 &&
    allowed.every((entry) => denied.some((deny) => covers(deny, entry)));
  const pathCovers = (deny: string, allow: string) => isInside(allow, deny);
  if (emptied(policy.read, policy.deny.read, pathCovers))
    throw new PolicyError("deny.read", "denies every path granted in read; remove the deny or the grant.");
  if (emptied(policy.write, [...policy.deny.write, ...policy.deny.read], pathCovers))
    throw new PolicyError("deny.write", "denies every path granted in write; remove the deny or the grant.");
  if (
    emptied(
      policy.net,
      policy.deny.net,
      (deny, allow) => deny === allow || (deny.startsWith("*.") && allow.endsWith(deny.slice(1))),
    )
  )
    throw new PolicyError("deny.net", "denies every host granted in net; remove the deny or the grant.");
  if (emptied(policy.run, policy.deny.run, (deny, allow) => deny === allow))
    throw new PolicyError("deny.run", "denies every program granted in run; nothing could run.");
}

/** Host paths to mount: writes read-write, reads read-only, minus what a deny removes entirely. */
export function mountsFor(policy: Policy): { source: string; readOnly: boolean }[] {
  const denied = (candidate: string, list: string[]) => list.some((deny) => isInside(candidate, deny));
  const writes =
    policy.write === true ? [] : policy.write.filter((p) => !denied(p, [...policy.deny.write, ...policy.deny.read]));
  const reads =
    policy.read === true ? [] : policy.read.filter((p) => !denied(p, policy.deny.read) && !writes.includes(p));
  return [
    ...writes.map((source) => ({ source, readOnly: false })),
    ...reads.map((source) => ({ source, readOnly: true })),
  ];
}

/** How denies inside mounted grants are enforced in the container itself, beyond the tools. */
export interface DenyOverlays {
  /** deny.read inside a mounted grant: hidden (an empty tmpfs or /dev/null is mounted over it). */
  hidden: string[];
  /** deny.write inside a read-write grant: mounted again read-only. */
  readOnly: string[];
}

/** The overlays that make denies inside mounted grants hold at the mount level. Pure. */
export function denyOverlays(policy: Policy): DenyOverlays {
  const mounts = mountsFor(policy);
  const strictlyInside = (candidate: string, sources: string[]) =>
    sources.some((source) => candidate !== source && isInside(candidate, source));
  const hidden = policy.deny.read.filter((deny) =>
    strictlyInside(
      deny,
      mounts.map((m) => m.source),
    ),
  );
  const readOnly = policy.deny.write.filter(
    (deny) =>
      !hidden.some((h) => isInside(deny, h)) &&
      strictlyInside(
        deny,
        mounts.filter((m) => !m.readOnly).map((m) => m.source),
      ),
  );
  return { hidden, readOnly };
}
