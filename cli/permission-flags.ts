/**
 * Deno-style permission flags as the CLI takes them (`--allow-net=a.com:443,b.com`,
 * `--allow-run`, `--deny-read=/srv/secret`, `--prompt`, `--audit`), turned into the worker's
 * permission policy. Pure.
 */
export interface PermissionFlags {
  [flag: string]: string | boolean | undefined;
}

type Kind = "read" | "write" | "net" | "run" | "env";
const KINDS: Kind[] = ["read", "write", "net", "run", "env"];

const list = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

/** The `permissions` object for `POST /v1/workers`; only what the flags say is set. */
export function permissionsFromFlags(flags: PermissionFlags): Record<string, unknown> {
  const permissions: Record<string, unknown> = {};
  const deny: Record<string, string[]> = {};
  for (const kind of KINDS) {
    const allow = flags[`allow-${kind}`];
    if (allow === true || allow === "") permissions[kind] = true;
    else if (typeof allow === "string") permissions[kind] = list(allow);
    const denied = flags[`deny-${kind}`];
    if (typeof denied === "string" && denied !== "") deny[kind] = list(denied);
    else if (denied === true)
      throw new Error(
        `--deny-${kind} needs a list, e.g. --deny-${kind}=${kind === "net" ? "evil.example.com" : kind === "run" ? "rm" : kind === "env" ? "AWS_SECRET" : "/srv/secret"}`,
      );
  }
  if (Object.keys(deny).length > 0) permissions.deny = deny;
  if (flags.prompt === true) permissions.prompt = true;
  if (flags.audit === true) permissions.mode = "audit";
  return permissions;
}

/** The flags in Node's parseArgs shape (each `--allow-*`/`--deny-*` may be bare or take a value). */
export const PERMISSION_OPTIONS = Object.fromEntries([
  ...KINDS.flatMap((kind) => [
    [`allow-${kind}`, { type: "string" as const }],
    [`deny-${kind}`, { type: "string" as const }],
  ]),
  ["prompt", { type: "boolean" as const }],
  ["audit", { type: "boolean" as const }],
]);

/**
 * Node's parseArgs wants a value for string options; a bare `--allow-net` means "all", so
 * it is rewritten to `--allow-net=` (empty: all) before parsing. Pure.
 */
export function normalizeBareFlags(argv: readonly string[]): string[] {
  return argv.map((arg) => (/^--(allow|deny)-(read|write|net|run|env)$/.test(arg) ? `${arg}=` : arg));
}
