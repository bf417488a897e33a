import type { SHELL_PROTOCOL } from "../contract/shell-frames.js";

/** The terminal an interactive shell opens for. */
export interface ShellTerminal {
  readonly columns: number;
  readonly rows: number;
  /** The terminal type, e.g. xterm-256color (the control plane's default). */
  readonly term?: string | undefined;
}

/** How to open an interactive shell: a GET to `url` with `headers`, upgraded (see `WorkcellClient.shellRequest`). */
export interface ShellRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
}

// The value of contract/shell-frames.ts's SHELL_PROTOCOL: the client imports types only, and the type keeps the two equal.
const SHELL_UPGRADE: typeof SHELL_PROTOCOL = "workcell-shell";

/** The upgrade request for a shell in worker `id` of the control plane at `url`, authenticated by `headers`. */
export function buildShellRequest(
  url: string,
  headers: Record<string, string>,
  id: string,
  terminal: ShellTerminal,
): ShellRequest {
  const target = new URL(`${url}/v1/workers/${encodeURIComponent(id)}/shell`);
  target.searchParams.set("columns", String(terminal.columns));
  target.searchParams.set("rows", String(terminal.rows));
  if (terminal.term !== undefined && terminal.term !== "") target.searchParams.set("term", terminal.term);
  return { url: target.href, headers: { ...headers, connection: "Upgrade", upgrade: SHELL_UPGRADE } };
}
