import { redactAndTruncate } from "../runtime/events/event-log.js";

/** Log levels, most verbose first. */
export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A logger that never writes a secret. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Writes one line per message — text (`ts LEVEL message key=value`) or JSON — at or above
 * `level`, with every secret redacted and long values truncated.
 */
export function createLogger(options: {
  level: LogLevel;
  format: "text" | "json";
  secrets: () => readonly string[];
  write?: (line: string) => void;
}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const emit = (level: LogLevel, message: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[level] < ORDER[options.level]) return;
    const secrets = options.secrets();
    const safeMessage = redactAndTruncate(message, secrets) as string;
    const safeFields = redactAndTruncate(fields, secrets) as Record<string, unknown>;
    const ts = new Date().toISOString();
    if (options.format === "json") write(JSON.stringify({ ts, level, msg: safeMessage, ...safeFields }));
    else {
      const extra = Object.entries(safeFields).map(
        ([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`,
      );
      write([ts, level.toUpperCase(), safeMessage, ...extra].join(" "));
    }
  };
  return {
    debug: (message, fields) => emit("debug", message, fields),
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
  };
}

/** The one-line summary of a tool call: `tool(args…) -> result… (12 ms)`. */
export function summarizeToolCall(tool: string, args: unknown, result: string, durationMs: number): string {
  const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
  return `${tool}(${shorten(JSON.stringify(args ?? {}), 120)}) -> ${shorten(result.replace(/\s+/g, " "), 120)} (${durationMs} ms)`;
}
