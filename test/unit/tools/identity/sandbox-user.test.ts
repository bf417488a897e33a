import { describe, expect, it } from "vitest";
import { SANDBOX_USER_HELPER } from "../../../../contract/container.js";
import { parseSandboxUser, sandboxCommand } from "../../../../tools/identity/sandbox-user.js";

describe("parseSandboxUser", () => {
  it("reads uid:gid", () => {
    expect(parseSandboxUser("1000:1000")).toEqual({ uid: 1000, gid: 1000 });
    expect(parseSandboxUser("4242:17")).toEqual({ uid: 4242, gid: 17 });
  });

  it("refuses a missing value, root, and anything but two decimal ids, naming the fix", () => {
    for (const value of [
      undefined,
      "",
      "0:0",
      "1000:0",
      "0:1000",
      "1000",
      "1000:1000:1",
      " 1000:1000",
      "01000:1000",
      "-1:5",
      "4294967295:1",
    ]) {
      expect(() => parseSandboxUser(value)).toThrow(
        /WORKCELL_SANDBOX_USER must be "uid:gid" with ids other than 0; got .*recreate the worker's container/,
      );
    }
  });
});

describe("sandboxCommand", () => {
  it("starts a program as given when this process is one plain user (as here: no effective uid borrowed from a root real uid)", () => {
    const real = process.getuid?.();
    const effective = process.geteuid?.();
    expect(real === 0 && effective !== 0).toBe(false);
    expect(sandboxCommand("bash", ["-c", "true"])).toEqual({ file: "bash", args: ["-c", "true"] });
    expect(SANDBOX_USER_HELPER).toBe("/usr/libexec/workcell-sandbox-user");
  });
});
