import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { SANDBOX_USER_HELPER } from "../../../../contract/container.js";
import {
  asSandboxUser,
  mcpServerArgv,
  TOOLS_EXEC,
  TOOLS_SNAPSHOT,
  toolsArgv,
} from "../../../../runtime/workers/in-container.js";

describe("the argv of workcell's in-container programs", () => {
  it("starts them from the image's node, the same under every runtime", () => {
    expect(mcpServerArgv()).toEqual(["node", "--snapshot-blob", TOOLS_SNAPSHOT, "mcp"]);
    expect(toolsArgv("call", "read_file")).toEqual(["node", "--snapshot-blob", TOOLS_SNAPSHOT, "call", "read_file"]);
  });

  it("execs them as the container's root from /, so they can keep an identity the sandbox user cannot reach", () => {
    expect(TOOLS_EXEC).toEqual({ user: "0:0", workingDir: "/" });
  });

  it("runs anything else as the sandbox user through the image's helper", () => {
    expect(asSandboxUser({ uid: 1000, gid: 1001 }, ["sleep", "infinity"])).toEqual([
      SANDBOX_USER_HELPER,
      "1000",
      "1001",
      "sleep",
      "infinity",
    ]);
  });

  it("names the helper the sandbox image compiles", async () => {
    const dockerfile = await readFile(new URL("../../../../Dockerfile.sandbox", import.meta.url), "utf8");
    expect(dockerfile).toContain(`-o ${SANDBOX_USER_HELPER} `);
    expect(dockerfile).toContain("COPY sandbox-user.c");
  });
});
