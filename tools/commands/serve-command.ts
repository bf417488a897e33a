import type { Readable, Writable } from "node:stream";
import { z } from "zod";
import { streamRecords } from "../shell/stream-records.js";

const NEWLINE = 0x0a;

/**
 * The control channel: one long-lived tools process per worker that answers the control
 * plane's requests (run, diff, …) over its stdio, so each needs no `docker exec` and no new
 * Node process. One JSON line per request, `{"id", "mode", "args"?, "input"?}`, and one per
 * answer, `{"id", "answer"}` with the value the one-shot mode would print. Requests run
 * concurrently; answers may come in any order.
 */
export const ChannelRequestSchema = z
  .object({
    id: z.number().int().nonnegative(),
    mode: z.string().min(1).max(40),
    args: z.array(z.string().max(4096)).max(16).default([]),
    input: z.string().default(""),
  })
  .strict();

/** Answers one request the way the one-shot mode would (the value it prints). */
export type ModeHandler = (mode: string, args: readonly string[], input: string) => Promise<unknown>;

/** Serves requests from `input` until it closes, then waits for those still running. */
export async function serveChannel(input: Readable, output: Writable, handle: ModeHandler, maxLineBytes: number): Promise<void> {
  const running = new Set<Promise<void>>();
  const reply = (id: number | null, answer: unknown) => output.write(`${JSON.stringify({ id, answer })}\n`);
  output.write(`${JSON.stringify({ pid: process.pid })}\n`);
  const dispatch = (line: string) => {
    let request: z.infer<typeof ChannelRequestSchema>;
    try {
      const parsed = ChannelRequestSchema.safeParse(JSON.parse(line));
      if (!parsed.success) return reply(null, { error: `invalid channel request: ${parsed.error.issues[0]?.message ?? "unknown"}` });
      request = parsed.data;
    } catch {
      return reply(null, { error: "invalid channel request: not JSON" });
    }
    const task = handle(request.mode, request.args, request.input)
      .then(
        (answer) => reply(request.id, answer),
        (error: unknown) => reply(request.id, { error: error instanceof Error ? error.message : String(error) }),
      )
      .then(() => undefined);
    running.add(task);
    void task.finally(() => running.delete(task));
  };
  for await (const record of streamRecords(input, NEWLINE, maxLineBytes)) {
    if (record === null) reply(null, { error: `a channel request over ${maxLineBytes} bytes was dropped` });
    else {
      const line = record.toString("utf8");
      if (line.trim() !== "") dispatch(line);
    }
  }
  await Promise.all(running);
}
