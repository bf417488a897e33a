import { execa } from "execa";
import { AppError } from "../errors/app-error.js";

const HOST_GIT_TIMEOUT_MS = 120_000;

/**
 * Settings that keep git from running anything a repository's config could name: no
 * system or user config, no hooks, no fsmonitor, no external diff or textconv, no prompts.
 */
const HARDENING_FLAGS = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.sshCommand=false",
  "-c",
  "diff.external=",
  "-c",
  "protocol.allow=never",
  "-c",
  "protocol.file.allow=always",
  "-c",
  "uploadpack.packObjectsHook=",
  "-c",
  "fetch.fsckObjects=true",
  "-c",
  "transfer.fsckObjects=true",
  "-c",
  "core.alternateRefsCommand=",
  "-c",
  "gc.auto=0",
  "-c",
  "maintenance.auto=false",
];

/** A clean environment: only what git needs, nothing inherited that could redirect it. */
function hardenedEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: "/nonexistent",
    LANG: "C",
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    GIT_PAGER: "cat",
    GIT_OPTIONAL_LOCKS: "0",
  };
}

/** The result of a host git call; a non-zero exit is data. */
export interface HostGitResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs git on the host, hardened, in `cwd` — which must be the user's repository or a
 * directory the agent has never been able to write.
 */
export async function runHostGit(
  cwd: string,
  args: readonly string[],
  options: { input?: string } = {},
): Promise<HostGitResult> {
  const result = await execa("git", [...HARDENING_FLAGS, ...args], {
    cwd,
    env: hardenedEnv(),
    extendEnv: false,
    reject: false,
    timeout: HOST_GIT_TIMEOUT_MS,
    stripFinalNewline: true,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
  if (result.failed && result.exitCode === undefined) {
    throw new AppError(
      "internal",
      `git could not be run on the host: ${result.shortMessage}. Install git and make sure it is on PATH.`,
    );
  }
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Like runHostGit but a non-zero exit throws an AppError with `message` and git's own words. */
export async function runHostGitOrThrow(cwd: string, args: readonly string[], message: string): Promise<string> {
  const result = await runHostGit(cwd, args);
  if (result.exitCode !== 0) {
    throw new AppError("internal", `${message}: ${result.stderr.trim() || `git exited with ${result.exitCode}`}`);
  }
  return result.stdout;
}
