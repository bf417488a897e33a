import type { Readable, Writable } from "node:stream";
import { streamRecords } from "../shell/stream-records.js";
import {
  ChannelRequestSchema,
  type ChannelHello,
  type ChannelReply,
  type ChannelRequest,
} from "../../contract/control.js";
import type { ControlFailure } from "../../contract/sandbox-error.js";

const NEWLINE = 0x0a;

/**
 * The control channel: one long-lived tools process per worker that answers the control
 * plane's requests (run, diff, …) over its stdio, so each needs no `docker exec` and no new
 * Node process. One JSON line per request, `{"id", "mode", "args"?, "input"?}`, and one per
 * answer, `{"id", "answer"}` with the value the one-shot mode would print (the shapes are
 * the contract's). Requests run concurrently; answers may come in any order.
 */

/** Answers one request the way the one-shot mode would (the value it prints). */
export type ModeHandler = (mode: string, args: readonly string[], input: string) => Promise<unknown>;

/** Serves requests from `input` until it closes, then waits for those still running. */
export async function serveChannel(
  input: Readable,
  output: Writable,
  handle: ModeHandler,
  maxLineBytes: number,
): Promise<void> {
  const running = new Set<Promise<void>>();
  const write = (line: ChannelReply | ChannelHello) => output.write(`${JSON.stringify(line)}\n`);
  const reply = (id: number | null, answer: unknown) => write({ id, answer });
  const fail = (id: number | null, error: string) => reply(id, { error } satisfies ControlFailure);
  write({ pid: process.pid });
  const dispatch = (line: string) => {
    let request: ChannelRequest;
    try {
      const parsed = ChannelRequestSchema.safeParse(JSON.parse(line));
      if (!parsed.success)
        return fail(null, `invalid channel request: ${parsed.error.issues[0]?.message ?? "unknown"}`);
      request = parsed.data;
    } catch {
      return fail(null, "invalid channel request: not JSON");
    }
    const task = handle(request.mode, request.args, request.input)
      .then(
        (answer) => reply(request.id, answer),
        (error: unknown) => fail(request.id, error instanceof Error ? error.message : String(error)),
      )
      .then(() => undefined);
    running.add(task);
    void task.finally(() => running.delete(task));
  };
  for await (const record of streamRecords(input, NEWLINE, maxLineBytes)) {
    if (record === null) fail(null, `a channel request over ${maxLineBytes} bytes was dropped`);
    else {
      const line = record.toString("utf8");
      if (line.trim() !== "") dispatch(line);
    }
  }
  await Promise.all(running);
}
