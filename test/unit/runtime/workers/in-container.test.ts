import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { mcpServerArgv, PROTECTED_NODE, runsExecuteOnly, TOOLS_PATH, toolsArgv } from "../../../../runtime/workers/in-container.js";

describe("the argv of workcell's in-container programs", () => {
  it("starts them from the execute-only node under runc and the engine's default runtime", () => {
    expect(mcpServerArgv(undefined)).toEqual([PROTECTED_NODE, TOOLS_PATH, "mcp"]);
    expect(toolsArgv("runc", "call", "read_file")).toEqual([PROTECTED_NODE, TOOLS_PATH, "call", "read_file"]);
  });

  it("falls back to the readable node under gVisor, which cannot exec what it may not read", () => {
    expect(runsExecuteOnly("runsc")).toBe(false);
    expect(runsExecuteOnly("runsc-debug")).toBe(false);
    expect(mcpServerArgv("runsc")).toEqual(["node", TOOLS_PATH, "mcp"]);
  });

  it("names the node the sandbox image installs execute-only and root-owned", async () => {
    const dockerfile = await readFile(new URL("../../../../Dockerfile.sandbox", import.meta.url), "utf8");
    expect(dockerfile).toContain(`chown root:root ${PROTECTED_NODE}`);
    expect(dockerfile).toContain(`chmod 0111 ${PROTECTED_NODE}`);
  });
});
