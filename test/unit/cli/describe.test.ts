import { describe, expect, it } from "vitest";
import { describeEvent, suggestFlag, summarizeArgs } from "../../../cli/describe.js";
import { clientUsage } from "../../../cli/help.js";

describe("describeEvent", () => {
  it("shows each line of an interactive shell, why a refused one was refused, and how the shell ended", () => {
    expect(describeEvent({ ts: "T", type: "shell_command", command: "git status", allowed: true })).toBe(
      "T shell_command git status",
    );
    expect(
      describeEvent({
        ts: "T",
        type: "shell_command",
        command: "curl x",
        allowed: false,
        message: 'PermissionDenied: run access to "curl" is not granted',
      }),
    ).toBe('T shell_command curl x → refused: PermissionDenied: run access to "curl" is not granted');
    expect(describeEvent({ ts: "T", type: "shell_closed", exitCode: 0, lines: 3, durationMs: 4100 })).toBe(
      "T shell_closed exit 0 after 3 lines (4100 ms)",
    );
  });

  it("shows an exec's command, exit code and duration, and the first line of what failed", () => {
    expect(
      describeEvent({
        ts: "T",
        type: "exec",
        command: ["npm", "test"],
        exitCode: 1,
        durationMs: 812,
        isError: true,
        result: "\nnpm ERR! missing script: test\nmore",
      }),
    ).toBe("T exec npm test → exit 1 (812 ms): npm ERR! missing script: test");
    expect(
      describeEvent({ ts: "T", type: "exec", command: "true", exitCode: 0, durationMs: 5, isError: false, result: "" }),
    ).toBe("T exec true → exit 0 (5 ms)");
  });

  it("shows a tool call's tool and its telling argument, and the message of a failed one", () => {
    expect(
      describeEvent({
        ts: "T",
        type: "tool_call",
        tool: "read_file",
        args: { path: "src/a.ts", limit: 10 },
        durationMs: 3,
        isError: false,
      }),
    ).toBe("T tool_call read_file path=src/a.ts (3 ms)");
    expect(
      describeEvent({
        ts: "T",
        type: "tool_call",
        tool: "write_file",
        args: { path: "/etc/x" },
        durationMs: 1,
        isError: true,
        result: "Error: PermissionDenied: write /etc/x",
      }),
    ).toBe("T tool_call write_file path=/etc/x (1 ms): Error: PermissionDenied: write /etc/x");
  });

  it("shows status changes and the message, reason or summary of any other event", () => {
    expect(
      describeEvent({
        ts: "T",
        type: "status_changed",
        from: "running",
        to: "failed",
        error: "the container exited with code 137",
      }),
    ).toBe("T status_changed running → failed: the container exited with code 137");
    expect(
      describeEvent({ ts: "T", type: "permission_denied", message: "Error: PermissionDenied: net example.com:443" }),
    ).toBe("T permission_denied Error: PermissionDenied: net example.com:443");
    expect(describeEvent({ ts: "T", type: "stopped_by_limit", reason: "disk 12 GB > 10 GB" })).toBe(
      "T stopped_by_limit disk 12 GB > 10 GB",
    );
    expect(describeEvent({ ts: "T", type: "created" })).toBe("T created");
  });
});

describe("summarizeArgs", () => {
  it("picks the argument that says what a call does, clipped to one line", () => {
    expect(summarizeArgs({ command: "rm -rf build\n&& make", cwd: "." })).toBe("command=rm -rf build && make");
    expect(summarizeArgs({ files: ["a.ts", "b.ts"] })).toBe("files=a.ts b.ts");
    expect(summarizeArgs({ other: 1 })).toBe('{"other":1}');
    expect(summarizeArgs({ path: "x".repeat(200) }, 20)).toBe(`path=${"x".repeat(14)}…`);
    expect(summarizeArgs(undefined)).toBe("");
  });
});

describe("suggestFlag", () => {
  const known = ["memory", "cpus", "name", "base", "allow-net", "allow-read", "json", "help"];
  it("names the known flag a typo was meant to be", () => {
    expect(suggestFlag("--memry", known)).toBe("--memory");
    expect(suggestFlag("--allow-nett=example.com", known)).toBe("--allow-net");
    expect(suggestFlag("--jsno", known)).toBe("--json");
  });
  it("suggests nothing for a flag that is nothing like any", () => {
    expect(suggestFlag("--frobnicate", known)).toBeUndefined();
    expect(suggestFlag("--x", known)).toBeUndefined();
  });
});

describe("the CLI's help", () => {
  it("gives every command an example", () => {
    const sections = clientUsage().split("\n\n");
    expect(sections.length).toBe(12);
    for (const section of sections) expect(section, section.split("\n")[0]).toMatch(/\n {2}Example: workcell \S/);
  });
});
