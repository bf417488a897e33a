import { describe, expect, it } from "vitest";
import { runImageTool } from "../../../../runtime/workspace/disk-image.js";

describe("the image tools' outcome", () => {
  it("says how a tool ended when it has no exit code: killed at its deadline, or never started", async () => {
    expect(await runImageTool("sh", ["-c", "exit 3"])).toMatchObject({ ok: false, exitCode: 3, ended: "exited 3" });
    expect(await runImageTool("sleep", ["5"], 50)).toMatchObject({
      ok: false,
      exitCode: undefined,
      ended: "was killed after 50 ms",
    });
    expect(await runImageTool("/nonexistent/mkfs.ext4", [])).toMatchObject({
      ok: false,
      exitCode: undefined,
      ended: "could not start: ENOENT",
    });
  });
});
