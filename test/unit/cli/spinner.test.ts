import { describe, expect, it } from "vitest";
import type { CliContext } from "../../../cli/command-context.js";
import { withSpinner } from "../../../cli/spinner.js";

function context(isTty: boolean): { ctx: CliContext; written: string[] } {
  const written: string[] = [];
  const ctx: CliContext = { isTty, stderr: (text) => void written.push(text), stdout: () => undefined, env: {} };
  return { ctx, written };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the spawn spinner", () => {
  it("shows progress with the elapsed time on a TTY once a task takes more than a moment, then clears its line", async () => {
    const { ctx, written } = context(true);
    expect(await withSpinner(ctx, true, "creating a worker", () => wait(700).then(() => "done"))).toBe("done");
    const frames = written.filter((text) => text.includes("creating a worker"));
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(frames.at(-1)).toMatch(/^\r. creating a worker \d+\.\ds$/);
    expect(written.at(-1)).toBe("\r\u001b[2K");
  });

  it("stays silent for quick tasks, off a TTY, and for --json, and passes failures through", async () => {
    for (const [isTty, enabled, ms] of [
      [true, true, 50],
      [false, true, 500],
      [true, false, 500],
    ] as const) {
      const { ctx, written } = context(isTty);
      await withSpinner(ctx, enabled, "creating a worker", () => wait(ms));
      expect(written).toEqual([]);
    }
    const { ctx } = context(true);
    await expect(withSpinner(ctx, true, "x", () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
  });
});
