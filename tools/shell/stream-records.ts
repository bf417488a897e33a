import type { Readable } from "node:stream";

/**
 * The records of a byte stream, each ended by `separator`, however the stream is cut into
 * chunks. When more than `maxBytes` gather without a separator they are dropped and `null`
 * is yielded in their place, so one endless record cannot hold memory. Bytes after the last
 * separator are dropped at the end of the stream.
 */
export async function* streamRecords(
  input: Readable,
  separator: number,
  maxBytes: number,
): AsyncGenerator<Buffer | null> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of input) {
    pending = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer]);
    let end: number;
    while ((end = pending.indexOf(separator)) !== -1) {
      yield pending.subarray(0, end);
      pending = pending.subarray(end + 1);
    }
    if (pending.length > maxBytes) {
      pending = Buffer.alloc(0);
      yield null;
    }
  }
}
