import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { streamRecords } from "../../../../tools/shell/stream-records.js";

async function collect(chunks: Buffer[], maxBytes: number): Promise<(string | null)[]> {
  // Each buffer arrives as a chunk of its own.
  const input = Readable.from(chunks);
  const records: (string | null)[] = [];
  for await (const record of streamRecords(input, 0x0a, maxBytes))
    records.push(record === null ? null : record.toString("utf8"));
  return records;
}

describe("streamRecords", () => {
  it("joins records cut anywhere, even inside a multi-byte character", async () => {
    const bytes = Buffer.from("héllo\nwörld\n");
    expect(await collect([bytes.subarray(0, 2), bytes.subarray(2, 9), bytes.subarray(9)], 100)).toEqual([
      "héllo",
      "wörld",
    ]);
  });

  it("drops a record that outgrows the limit, once, and goes on", async () => {
    expect(await collect([Buffer.from("x".repeat(50)), Buffer.from("y\nok\n")], 40)).toEqual([null, "y", "ok"]);
  });
});
