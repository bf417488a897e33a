// Requests to the control plane's /v1 API with the signed-in token.
import { signOut } from "./login.js";
import { state } from "./state.js";

/** A non-2xx answer: its status, and the error code and message from its body. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Sends `body` as JSON and answers the parsed reply; a refused token signs out. */
export async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${state.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const data = text === "" ? undefined : JSON.parse(text);
  if (!response.ok) {
    if (response.status === 401) signOut("The token was refused; sign in again.");
    throw new ApiError(response.status, data?.error?.code, data?.error?.message ?? `HTTP ${response.status}`);
  }
  return data;
}
