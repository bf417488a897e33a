/**
 * The framing of an interactive shell's connection (`GET /v1/workers/:id/shell` upgraded to
 * `workcell-shell`), both ways: a kind byte, a 4-byte big-endian length, the payload.
 *   data   (0): terminal bytes (typed, or output)
 *   resize (1): client to server, columns and rows as two 2-byte big-endian numbers
 *   exit   (2): server to client, the shell's exit status as a 4-byte signed number, last
 */
export const SHELL_PROTOCOL = "workcell-shell";

export type ShellFrame =
  { kind: "data"; data: Buffer } | { kind: "resize"; columns: number; rows: number } | { kind: "exit"; code: number };

const KIND = { data: 0, resize: 1, exit: 2 } as const;
const HEADER_BYTES = 5;
/** The largest frame either side accepts. */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** One frame's bytes. Pure. */
export function encodeFrame(frame: ShellFrame): Buffer {
  let payload: Buffer;
  if (frame.kind === "data") payload = frame.data;
  else if (frame.kind === "resize") {
    payload = Buffer.alloc(4);
    payload.writeUInt16BE(frame.columns, 0);
    payload.writeUInt16BE(frame.rows, 2);
  } else {
    payload = Buffer.alloc(4);
    payload.writeInt32BE(frame.code, 0);
  }
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(KIND[frame.kind], 0);
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** Splits a byte stream into frames, however it was cut. Throws on a frame it cannot read. */
export class FrameDecoder {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): ShellFrame[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: ShellFrame[] = [];
    while (this.pending.length >= HEADER_BYTES) {
      const kind = this.pending.readUInt8(0);
      const length = this.pending.readUInt32BE(1);
      if (length > MAX_FRAME_BYTES)
        throw new Error(`a ${SHELL_PROTOCOL} frame of ${length} bytes is over the ${MAX_FRAME_BYTES}-byte limit`);
      if (this.pending.length < HEADER_BYTES + length) break;
      const payload = Buffer.from(this.pending.subarray(HEADER_BYTES, HEADER_BYTES + length));
      this.pending = this.pending.subarray(HEADER_BYTES + length);
      if (kind === KIND.data) frames.push({ kind: "data", data: payload });
      else if (kind === KIND.resize && length === 4)
        frames.push({ kind: "resize", columns: payload.readUInt16BE(0), rows: payload.readUInt16BE(2) });
      else if (kind === KIND.exit && length === 4) frames.push({ kind: "exit", code: payload.readInt32BE(0) });
      else throw new Error(`unknown ${SHELL_PROTOCOL} frame (kind ${kind}, ${length} bytes)`);
    }
    return frames;
  }
}
