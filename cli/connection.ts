import { readFile } from "node:fs/promises";
import path from "node:path";
import { resolveControlPlaneUrl, WorkcellClient, WorkcellError } from "../client/index.js";

/** Where the CLI finds the control plane and its token. */
export interface Connection {
  url: string;
  token: string;
}

/** A failure the CLI reports in one line, with the exit code it exits with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** --url/--token, else WORKCELL_URL/WORKCELL_TOKEN, else the local data dir's token and WORKCELL_HOST/WORKCELL_PORT (as the client finds the plane). */
export async function resolveConnection(
  flags: { url?: string | undefined; token?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): Promise<Connection> {
  const url = (flags.url ?? resolveControlPlaneUrl(env)).replace(/\/+$/, "");
  let token = flags.token ?? env.WORKCELL_TOKEN;
  if (token === undefined) {
    const file = path.resolve(env.WORKCELL_DATA_DIR ?? ".workcell", "token");
    token = (await readFile(file, "utf8").catch(() => "")).trim();
    if (token === "")
      throw new CliError(
        `No token: pass --token, set WORKCELL_TOKEN, or run this where the control plane's data dir is (${file} was not found).`,
      );
  }
  // An empty token could only be refused; say so here, as the control plane would (exit 77).
  if (token === "")
    throw new CliError(
      "The token is empty: pass --token <token> or set WORKCELL_TOKEN to the token the control plane printed at start (it keeps it in <dataDir>/token).",
      77,
    );
  return { url, token };
}

/** The typed client every request of the CLI goes through. */
export function createClient(connection: Connection): WorkcellClient {
  return new WorkcellClient({ url: connection.url, token: connection.token });
}

/** A client's failure as the CLI reports it: unreachable, or the server's message (refused credentials exit 77); anything else unchanged. */
export function toCliError(connection: Connection, error: unknown): unknown {
  if (!(error instanceof WorkcellError)) return error;
  if (error.code === "network")
    return unreachable(connection, typeof error.details?.reason === "string" ? error.details.reason : error.message);
  return new CliError(error.message, error.status === 401 || error.status === 403 ? 77 : 1);
}

/** The error for a control plane that cannot be reached, and why. */
export function unreachable(connection: Connection, reason: string): CliError {
  return new CliError(
    `Cannot reach the control plane at ${connection.url} (${reason}). Start it with 'npm start', or pass --url.`,
  );
}

/** The error for a non-2xx answer: the server's message (else the status); refused credentials exit 77. */
export function refused(status: number, body: unknown): CliError {
  const message = (body as { error?: { message?: string } } | undefined)?.error?.message ?? `HTTP ${status}`;
  return new CliError(message, status === 401 || status === 403 ? 77 : 1);
}
