import { describe, expect, it } from "vitest";
import { AppError, ERROR_STATUS, toErrorBody } from "../../../runtime/errors/app-error.js";

describe("error mapping", () => {
  it("maps every code to the status in the public contract", () => {
    expect(ERROR_STATUS).toEqual({
      invalid_input: 400,
      unauthorized: 401,
      permission_denied: 403,
      not_found: 404,
      conflict: 409,
      payload_too_large: 413,
      docker_unavailable: 503,
      timeout: 504,
      internal: 500,
    });
  });

  it("turns an AppError into the uniform body with details", () => {
    const { status, body } = toErrorBody(new AppError("conflict", "busy", { details: { id: "x" } }));
    expect(status).toBe(409);
    expect(body).toEqual({ error: { code: "conflict", message: "busy", details: { id: "x" } } });
  });

  it("hides the message of unexpected errors behind internal", () => {
    const { status, body } = toErrorBody(new Error("connection string with password=hunter2"));
    expect(status).toBe(500);
    expect(body.error.code).toBe("internal");
    expect(JSON.stringify(body)).not.toContain("hunter2");
  });
});
