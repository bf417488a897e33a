import { writeFile, mkdtemp, rm } from "node:fs/promises";
import { constants } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

// A file system that answers every read with at most 7 bytes (gVisor's may answer short).
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return {
    ...real,
    readSync: (fd: number, buffer: Buffer, offset: number, length: number, position: number | null) =>
      real.readSync(fd, buffer, offset, Math.min(length, 7), position),
  };
});

const { openFileBeneath } = await import("../../../../tools/fs/beneath.js");

const base = await mkdtemp(path.join(tmpdir(), "workcell-short-reads-"));
afterAll(() => rm(base, { recursive: true, force: true }));

describe("reading a file whose reads come back short", () => {
  it("reads it whole, not up to the first short read", async () => {
    const text = "line one\nline two\nline three\n".repeat(20);
    await writeFile(path.join(base, "file.txt"), text);
    const file = await openFileBeneath(base, "file.txt", constants.O_RDONLY);
    try {
      expect(file.readText(file.stat().size)).toBe(text);
    } finally {
      file.closeNow();
    }
  });
});
