import { errorFromResponse, networkError } from "./workcell-error.js";

/** Where a request goes and how it is sent: the control plane's address, the headers that authenticate, the fetch. */
export interface Endpoint {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly fetch: typeof fetch;
}

/** Sends one request (`body` as JSON) and answers the JSON reply; a non-2xx answer outside `okStatuses` throws a WorkcellError. */
export async function requestJson<T>(
  endpoint: Endpoint,
  method: string,
  route: string,
  body?: unknown,
  options: { okStatuses?: number[] } = {},
): Promise<T> {
  let response: Response;
  try {
    response = await endpoint.fetch(`${endpoint.url}${route}`, {
      method,
      headers: { ...endpoint.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw networkError(endpoint.url, error);
  }
  if (!response.ok && !options.okStatuses?.includes(response.status)) throw await errorFromResponse(response);
  return (await response.json()) as T;
}

/** A query string of the parameters that are set ("" when none is). */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const entries = Object.entries(params).filter(
    (entry): entry is [string, string | number | boolean] => entry[1] !== undefined,
  );
  return entries.length === 0
    ? ""
    : `?${new URLSearchParams(entries.map(([key, value]) => [key, String(value)])).toString()}`;
}
