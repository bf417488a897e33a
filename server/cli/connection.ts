import { readFile } from "node:fs/promises";
import path from "node:path";

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

/** --url/--token, else WORKCELL_URL/WORKCELL_TOKEN, else the local data dir's token and the default address. */
export async function resolveConnection(flags: { url?: string | undefined; token?: string | undefined }, env: Readonly<Record<string, string | undefined>>): Promise<Connection> {
  const url = (flags.url ?? env.WORKCELL_URL ?? `http://${env.WORKCELL_HOST ?? "127.0.0.1"}:${env.WORKCELL_PORT ?? "7070"}`).replace(/\/+$/, "");
  let token = flags.token ?? env.WORKCELL_TOKEN;
  if (token === undefined) {
    const file = path.resolve(env.WORKCELL_DATA_DIR ?? ".workcell", "token");
    token = (await readFile(file, "utf8").catch(() => "")).trim();
    if (token === "") throw new CliError(`No token: pass --token, set WORKCELL_TOKEN, or run this where the control plane's data dir is (${file} was not found).`);
  }
  return { url, token };
}

/** Calls the control plane; a non-2xx answer becomes a one-line CliError carrying the server's message. */
export async function request<T>(connection: Connection, method: string, route: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${connection.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${connection.token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw unreachable(connection, cause?.code ?? cause?.message ?? String(error));
  }
  const text = await response.text();
  const parsed = text === "" ? undefined : (JSON.parse(text) as unknown);
  if (!response.ok) throw refused(response.status, parsed);
  return parsed as T;
}

/** The error for a control plane that cannot be reached, and why. */
export function unreachable(connection: Connection, reason: string): CliError {
  return new CliError(`Cannot reach the control plane at ${connection.url} (${reason}). Start it with 'npm start', or pass --url.`);
}

/** The error for a non-2xx answer: the server's message (else the status); refused credentials exit 77. */
export function refused(status: number, body: unknown): CliError {
  const message = (body as { error?: { message?: string } } | undefined)?.error?.message ?? `HTTP ${status}`;
  return new CliError(message, status === 401 || status === 403 ? 77 : 1);
}
