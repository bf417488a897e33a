/** An error shaped like the Docker engine's as dockerode throws it: HTTP status code, reason, and the engine's message. */
export function engineError(statusCode: number, reason: string, message: string): Error & { statusCode: number } {
  return Object.assign(new Error(`(HTTP code ${statusCode}) ${reason} - ${message} `), {
    statusCode,
    reason,
    json: { message },
  });
}
