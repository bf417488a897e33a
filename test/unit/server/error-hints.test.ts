import { describe, expect, it } from "vitest";
import { AppError } from "../../../runtime/errors/app-error.js";
import { describeError } from "../../../server/error-hints.js";

describe("describeError", () => {
  it("adds the route that does the action the runtime named, keeping code, status and details", () => {
    const error = new AppError("conflict", "Worker 3f9c1a2b is stopped, not running. Start it first.", {
      details: { status: "stopped", action: "start_worker", worker: "3f9c1a2b" },
    });
    expect(describeError(error)).toEqual({
      status: 409,
      body: {
        error: {
          code: "conflict",
          message: "Worker 3f9c1a2b is stopped, not running. Start it first. (POST /v1/workers/3f9c1a2b/start)",
          details: { status: "stopped", action: "start_worker", worker: "3f9c1a2b" },
        },
      },
    });
  });

  it("leaves a message alone when no action is named, or one it does not know", () => {
    expect(describeError(new AppError("not_found", "No such thing.")).body.error.message).toBe("No such thing.");
    expect(describeError(new AppError("conflict", "Busy.", { details: { action: "dance" } })).body.error.message).toBe(
      "Busy.",
    );
  });

  it("answers anything that is not an AppError as an internal error that tells nothing of its cause", () => {
    expect(describeError(new Error("secret path /root/x"))).toEqual({
      status: 500,
      body: { error: { code: "internal", message: expect.not.stringContaining("secret") } },
    });
  });
});
