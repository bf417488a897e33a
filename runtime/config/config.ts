import path from "node:path";
import { z } from "zod";
import { AppError } from "../errors/app-error.js";

const PortSchema = z.coerce.number().int().min(0).max(65_535);

/** Slots a repository pool keeps when its entry names no size. */
export const DEFAULT_REPO_POOL_SIZE = 2;

/** One WORKCELL_POOL_REPOS entry: a repository whose clones are kept ready. */
export interface RepoPoolConfig {
  readonly repo: string;
  readonly size: number;
}

/** `PATH[=SIZE],PATH[=SIZE]…` into entries; each problem is reported with the entry it is in. */
const PoolReposSchema = z.string().transform((value, ctx): RepoPoolConfig[] => {
  const entries: RepoPoolConfig[] = [];
  for (const raw of value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")) {
    const match = /^(.+?)(?:=(\d+))?$/.exec(raw);
    const size = match?.[2] === undefined ? DEFAULT_REPO_POOL_SIZE : Number(match[2]);
    if (match === null || size < 1 || size > 64) {
      ctx.addIssue({
        code: "custom",
        message: `"${raw}" is not PATH or PATH=SIZE with SIZE from 1 to 64, e.g. /srv/app=4,/srv/lib`,
      });
      continue;
    }
    const repo = path.resolve(match[1] as string);
    if (entries.some((entry) => entry.repo === repo)) {
      ctx.addIssue({ code: "custom", message: `${repo} is listed twice; give it once, with the size you want` });
      continue;
    }
    entries.push({ repo, size });
  }
  return entries;
});

/** The environment variables workcell reads, validated once. */
export const EnvSchema = z.object({
  WORKCELL_HOST: z.string().min(1).default("127.0.0.1"),
  WORKCELL_PORT: PortSchema.default(7070),
  WORKCELL_DATA_DIR: z.string().min(1).default("./.workcell"),
  WORKCELL_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  WORKCELL_IMAGE: z.string().min(1).optional(),
  WORKCELL_SESSION_IDLE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(30 * 60_000),
  WORKCELL_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  WORKCELL_MAX_MCP_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  WORKCELL_WATCHDOG_INTERVAL_MS: z.coerce.number().int().min(100).default(10_000),
  WORKCELL_POOL_SIZE: z.coerce.number().int().min(0).max(256).default(0),
  WORKCELL_POOL_REPOS: PoolReposSchema.default([]),
  WORKCELL_HEAVY_CONCURRENCY: z.coerce.number().int().min(1).max(1024).optional(),
  WORKCELL_HEAVY_PER_WORKER: z.coerce.number().int().min(1).max(64).default(1),
  WORKCELL_HEAVY_LEASE_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(24 * 60 * 60_000)
    .default(65 * 60_000),
  WORKCELL_LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  WORKCELL_LOG_FORMAT: z.enum(["text", "json"]).default("text"),
  WORKCELL_MCP_ELICITATION: z.enum(["true", "false"], { message: "must be true or false" }).default("false"),
  WORKCELL_MCP_SAMPLING: z.enum(["true", "false"], { message: "must be true or false" }).default("false"),
  WORKCELL_DISK_QUOTA: z.enum(["auto", "watchdog"]).default("auto"),
  WORKCELL_RUNTIME: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, "must be the name of an OCI runtime the engine knows, e.g. runsc")
    .optional(),
});

/** Resource limits a worker gets unless `resources` says otherwise. */
export const DEFAULT_RESOURCES: Readonly<{
  cpus: number;
  memoryMb: number;
  pids: number;
  tmpMb: number;
  diskMb: number;
}> = Object.freeze({
  cpus: 1,
  memoryMb: 2048,
  pids: 512,
  tmpMb: 512,
  diskMb: 10_240,
});

/** workcell's configuration, parsed once and frozen. */
export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly token: string | undefined;
  /** An image tag that overrides the built sandbox image (for tests and custom images). */
  readonly image: string | undefined;
  readonly sessionIdleMs: number;
  readonly maxBodyBytes: number;
  readonly maxMcpBodyBytes: number;
  /** How often workers are checked for disk use, lifetime and idleness. */
  readonly watchdogIntervalMs: number;
  /** The OCI runtime workers use unless they ask for another (e.g. runsc); the engine's default when unset. */
  readonly runtime: string | undefined;
  readonly logLevel: "debug" | "info" | "warn" | "error";
  readonly logFormat: "text" | "json";
  /** Whether a worker's tools may send `elicitation/create` to the agent's client (off by default). */
  readonly mcpElicitation: boolean;
  /** Whether a worker's tools may send `sampling/createMessage` to the agent's client (off by default). */
  readonly mcpSampling: boolean;
  /** Heavy commands (builds, tests, exec) running at once, host-wide; default: the engine's cores. */
  readonly heavyConcurrency: number | undefined;
  /** Containers kept created and started ahead of time for workers with the default policy. */
  readonly poolSize: number;
  /** Repositories whose clones are kept ready in started containers, each with its own pool. */
  readonly poolRepos: readonly RepoPoolConfig[];
  /** Heavy slots one worker may hold at once. */
  readonly heavyPerWorker: number;
  /** How long a heavy slot is lent before it returns to the queue on its own. */
  readonly heavyLeaseMs: number;
  /**
   * How `diskMb` is enforced: `auto` gives each workspace its own filesystem image when the
   * host allows it (root, loop devices) and falls back to the watchdog otherwise; `watchdog`
   * never mounts anything.
   */
  readonly diskQuota: "auto" | "watchdog";
}

/**
 * Parses configuration from explicit overrides, then the environment, then defaults.
 * Invalid values fail with a message naming the variable and how to fix it.
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  overrides: Partial<Config> = {},
): Readonly<Config> {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new AppError(
      "invalid_input",
      `Invalid configuration: ${problems}. Fix or unset these environment variables.`,
    );
  }
  const values = parsed.data;
  return Object.freeze({
    host: overrides.host ?? values.WORKCELL_HOST,
    port: overrides.port ?? values.WORKCELL_PORT,
    dataDir: path.resolve(overrides.dataDir ?? values.WORKCELL_DATA_DIR),
    token: overrides.token ?? values.WORKCELL_TOKEN,
    image: overrides.image ?? values.WORKCELL_IMAGE,
    sessionIdleMs: overrides.sessionIdleMs ?? values.WORKCELL_SESSION_IDLE_MS,
    maxBodyBytes: overrides.maxBodyBytes ?? values.WORKCELL_MAX_BODY_BYTES,
    maxMcpBodyBytes: overrides.maxMcpBodyBytes ?? values.WORKCELL_MAX_MCP_BODY_BYTES,
    watchdogIntervalMs: overrides.watchdogIntervalMs ?? values.WORKCELL_WATCHDOG_INTERVAL_MS,
    runtime: overrides.runtime ?? values.WORKCELL_RUNTIME,
    logLevel: overrides.logLevel ?? values.WORKCELL_LOG_LEVEL,
    logFormat: overrides.logFormat ?? values.WORKCELL_LOG_FORMAT,
    mcpElicitation: overrides.mcpElicitation ?? values.WORKCELL_MCP_ELICITATION === "true",
    mcpSampling: overrides.mcpSampling ?? values.WORKCELL_MCP_SAMPLING === "true",
    heavyConcurrency: overrides.heavyConcurrency ?? values.WORKCELL_HEAVY_CONCURRENCY,
    poolSize: overrides.poolSize ?? values.WORKCELL_POOL_SIZE,
    poolRepos: overrides.poolRepos ?? values.WORKCELL_POOL_REPOS,
    heavyPerWorker: overrides.heavyPerWorker ?? values.WORKCELL_HEAVY_PER_WORKER,
    heavyLeaseMs: overrides.heavyLeaseMs ?? values.WORKCELL_HEAVY_LEASE_MS,
    diskQuota: overrides.diskQuota ?? values.WORKCELL_DISK_QUOTA,
  });
}
