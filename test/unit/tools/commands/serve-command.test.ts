import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { serveChannel } from "../../../../tools/commands/serve-command.js";

async function serve(lines: string, maxLineBytes = 1024): Promise<unknown[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  const served = serveChannel(input, output, async (mode, args, text) => ({ mode, args, text }), maxLineBytes);
  input.end(lines);
  await served;
  return output
    .read()
    .toString("utf8")
    .trim()
    .split("\n")
    .map((line: string) => JSON.parse(line));
}

describe("the control channel's server", () => {
  it("announces its pid, then answers each request by id and each malformed line with an error", async () => {
    const answers = await serve(
      `${JSON.stringify({ id: 4, mode: "run", input: "x" })}\nnot json\n${JSON.stringify({ id: 5, mode: "diff", extra: 1 })}\n`,
    );
    expect(answers[0]).toEqual({ pid: process.pid });
    expect(answers).toContainEqual({ id: 4, answer: { mode: "run", args: [], text: "x" } });
    expect(answers).toContainEqual({ id: null, answer: { error: "invalid channel request: not JSON" } });
    expect(answers.filter((answer) => (answer as { id: unknown }).id === null)).toHaveLength(2);
  });

  it("drops a line over its limit instead of holding it", async () => {
    const answers = await serve("x".repeat(5_000), 1_000);
    expect(answers.slice(1)).toEqual([
      { id: null, answer: { error: "a channel request over 1000 bytes was dropped" } },
    ]);
  });
});
