import { describe, expect, it } from "vitest";
import { encodeFrame, FrameDecoder, MAX_FRAME_BYTES } from "../../../contract/shell-frames.js";

describe("the shell connection's frames", () => {
  it("round-trip data, resize and exit, cut at every byte", () => {
    const bytes = Buffer.concat([
      encodeFrame({ kind: "data", data: Buffer.from("ls\r") }),
      encodeFrame({ kind: "resize", columns: 132, rows: 43 }),
      encodeFrame({ kind: "exit", code: -1 }),
    ]);
    const decoder = new FrameDecoder();
    const frames = [...bytes].flatMap((byte) => decoder.push(Buffer.from([byte])));
    expect(frames).toEqual([
      { kind: "data", data: Buffer.from("ls\r") },
      { kind: "resize", columns: 132, rows: 43 },
      { kind: "exit", code: -1 },
    ]);
  });

  it("refuses an oversized or unknown frame instead of buffering it", () => {
    const huge = Buffer.alloc(5);
    huge.writeUInt32BE(MAX_FRAME_BYTES + 1, 1);
    expect(() => new FrameDecoder().push(huge)).toThrow(/over the 1048576-byte limit/);
    expect(() => new FrameDecoder().push(Buffer.from([9, 0, 0, 0, 0]))).toThrow(/unknown workcell-shell frame/);
  });
});
