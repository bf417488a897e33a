/** One variable of the process environment, where there is one (Node, Bun, Deno's compat); undefined in a browser. */
export const readEnv = (name: string): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];

/**
 * The control plane's address as every workcell client finds it: `WORKCELL_URL`, else
 * `http://WORKCELL_HOST:WORKCELL_PORT` (default 127.0.0.1:7070), the variables the control
 * plane itself binds by, so a client never sends its token to a port the plane is not on.
 */
export function resolveControlPlaneUrl(
  vars: Readonly<Record<string, string | undefined>> = {
    WORKCELL_URL: readEnv("WORKCELL_URL"),
    WORKCELL_HOST: readEnv("WORKCELL_HOST"),
    WORKCELL_PORT: readEnv("WORKCELL_PORT"),
  },
): string {
  const explicit = vars.WORKCELL_URL?.trim();
  if (explicit) return explicit.replace(/\/+$/, "");
  const host = vars.WORKCELL_HOST?.trim() || "127.0.0.1";
  const port = vars.WORKCELL_PORT?.trim() || "7070";
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}
