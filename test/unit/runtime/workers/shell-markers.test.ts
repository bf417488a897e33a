import { describe, expect, it } from "vitest";
import { ShellMarkerFilter } from "../../../../runtime/workers/shell-markers.js";

const marker = (nonce: string, report?: unknown) =>
  `\u001b]7717;workcell;${nonce};${report === undefined ? "" : Buffer.from(JSON.stringify(report)).toString("base64")}\u0007`;

describe("the shell's report filter", () => {
  it("takes reports out of the stream, even cut mid-marker, and keeps everything else byte for byte", () => {
    const filter = new ShellMarkerFilter();
    const stream = `${marker("4242")}$ git status\r\n${marker("4242", { command: "git status", allowed: true, audit: [] })}On branch main\r\n\u001b[1mbold\u001b[0m`;
    let output = "";
    const reports = [];
    for (const char of stream) {
      const pushed = filter.push(Buffer.from(char));
      output += pushed.output.toString("utf8");
      reports.push(...pushed.reports);
    }
    output += filter.flush().toString("utf8");
    expect(output).toBe("$ git status\r\nOn branch main\r\n\u001b[1mbold\u001b[0m");
    expect(reports).toEqual([{ command: "git status", allowed: true, audit: [] }]);
  });

  it("drops reports with another nonce, and malformed ones, from the stream and the record", () => {
    const filter = new ShellMarkerFilter();
    filter.push(Buffer.from(marker("1")));
    const { output, reports } = filter.push(
      Buffer.from(`a${marker("2", { command: "forged", allowed: true, audit: [] })}b${marker("1", { command: 7 })}c`),
    );
    expect(output.toString()).toBe("abc");
    expect(reports).toEqual([]);
  });
});
