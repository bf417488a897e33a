import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WARM_UP_SAMPLE, warmUp } from "../../../tools/warm-up.js";

afterEach(() => vi.restoreAllMocks());

describe("the tools server's warm-up", () => {
  it("goes through the protocol, a failed read and a read of its sample without writing anything or to stdout", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "workcell-warm-up-"));
    await writeFile(path.join(root, WARM_UP_SAMPLE), "unchanged\n");
    const stdout = vi.spyOn(process.stdout, "write");
    expect(await warmUp(root)).toBe(5);
    expect(stdout).not.toHaveBeenCalled();
    expect(await readdir(root)).toEqual([WARM_UP_SAMPLE]);
    expect(await readFile(path.join(root, WARM_UP_SAMPLE), "utf8")).toBe("unchanged\n");
  });

  it("stops between steps once the real session has begun", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "workcell-warm-up-"));
    let checks = 0;
    // The session "begins" after the second step: two are taken, the rest are not.
    expect(await warmUp(root, () => (checks += 1) > 2)).toBe(2);
    expect(await warmUp(root, () => true)).toBe(0);
  });
});
