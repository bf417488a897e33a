import { z } from "zod";
import { AuditEntrySchema } from "./policy.js";

/**
 * What the control plane asks of the tools program in a worker's container, and what it
 * answers: the control channel's lines, the `run` mode (behind `POST .../exec`), the `diff`
 * and `kill-marked` modes, and the interactive shell's line reports. The tools build these
 * values and the control plane validates them on arrival (the container is untrusted). A
 * mode that fails answers the contract's ControlFailure (sandbox-error.ts) instead.
 */

/** The control modes the tools program serves the control plane, one-shot or over the channel. */
export const CONTROL_MODES = ["run", "diff", "kill-marked"] as const;
export type ControlMode = (typeof CONTROL_MODES)[number];

/**
 * One request line on the control channel: the mode, its arguments and its stdin, with an
 * id the answer repeats. Requests run concurrently; answers may come in any order.
 */
export const ChannelRequestSchema = z
  .object({
    id: z.number().int().nonnegative(),
    mode: z.string().min(1).max(40),
    args: z.array(z.string().max(4096)).max(16).default([]),
    input: z.string().default(""),
  })
  .strict();
export type ChannelRequest = z.infer<typeof ChannelRequestSchema>;

/** One answer line: the request's id (null for a line that was no request) and the value the one-shot mode would print. */
export const ChannelReplySchema = z.object({ id: z.number().int().nonnegative().nullable(), answer: z.unknown() });
export type ChannelReply = z.infer<typeof ChannelReplySchema>;

/** The channel's first line: the serving process's pid in the container, so a wedged one can be killed. */
export const ChannelHelloSchema = z.object({ pid: z.number().int().min(2) });
export type ChannelHello = z.infer<typeof ChannelHelloSchema>;

/** The request `run` takes on its stdin: what to run, where, and under which limits. */
export const RunRequestSchema = z.object({
  command: z.union([z.string().min(1), z.array(z.string()).min(1)]),
  cwd: z.string().optional(),
  timeoutMs: z.number().int().positive(),
  maxOutputBytes: z.number().int().positive(),
  env: z.record(z.string(), z.string()).optional(),
});
export type RunRequest = z.infer<typeof RunRequestSchema>;

/** How one finished command went, as `run` and the shell tool both report it. */
export const CommandOutcomeSchema = z.object({
  exitCode: z.number().int().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
  truncated: z.boolean(),
  durationMs: z.number(),
});

const { exitCode, ...outcome } = CommandOutcomeSchema.shape;

/** What `run` answers when the command ran (or could not start). */
export const RunResultSchema = z.object({
  exitCode,
  signal: z.string().nullable(),
  ...outcome,
  spawnError: z.string().optional(),
  /** The command was killed because the worker's memory limit was exceeded. */
  oomKilled: z.boolean().default(false),
  /** What audit mode recorded in the container (not part of the answer to the client). */
  audit: z.array(AuditEntrySchema).default(() => []),
});
export type RunResult = z.infer<typeof RunResultSchema>;

/** One file `diff` reports changed since the base, with line counts (binary files count 0). */
export const DiffFileSchema = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted", "renamed", "copied", "type_changed"]),
  additions: z.number().int(),
  deletions: z.number().int(),
  oldPath: z.string().optional(),
});
export type DiffFile = z.infer<typeof DiffFileSchema>;

/** What `diff` answers: everything that changed since the base commit, and the patch (cut when `truncated`). */
export const DiffResultSchema = z.object({
  baseCommit: z.string(),
  head: z.string(),
  files: z.array(DiffFileSchema),
  patch: z.string(),
  truncated: z.boolean(),
});
export type DiffResult = z.infer<typeof DiffResultSchema>;

/** What `kill-marked` answers: how many processes carrying the marker it ended. */
export const KillMarkedResultSchema = z.object({ killed: z.number().int() });
export type KillMarkedResult = z.infer<typeof KillMarkedResultSchema>;

/** One line the interactive shell checked, as its report carries it to the control plane. */
export const ShellLineReportSchema = z.object({
  command: z.string().max(100_000),
  allowed: z.boolean(),
  message: z.string().max(10_000).optional(),
  audit: z
    .array(AuditEntrySchema)
    .max(200)
    .default(() => []),
});
export type ShellLineReport = z.infer<typeof ShellLineReportSchema>;

/**
 * How an interactive shell's report starts in its terminal stream, after ESC ]: a private
 * OSC number and the tag, then `<nonce> ; <base64 JSON> BEL`. Plain text, safe in a printf format.
 */
export const SHELL_REPORT_INTRODUCER = "7717;workcell;";
