/**
 * The commands on workers themselves: create one, list them, remove one, and the MCP config
 * that reaches one. Everything shown that came from the server passes through `safe` before
 * any colour is added.
 */
import path from "node:path";
import type { SpawnInput } from "../client/index.js";
import { escapeControls as safe, stringifyForTerminal } from "../contract/terminal-text.js";
import type { ClientCommand, CommandRun } from "./command-context.js";
import { positiveNumber, requireValue } from "./parse-flags.js";
import { PERMISSION_OPTIONS, permissionsFromFlags } from "./permission-flags.js";
import { withSpinner } from "./spinner.js";
import { color, statusColor, table } from "./terminal-style.js";

async function spawnWorker({ command, ctx, flags, first, client, call, print, json }: CommandRun): Promise<number> {
  // A relative path means the directory it names here, wherever the control plane runs.
  const body: Record<string, unknown> = { repo: path.resolve(requireValue(first, "the repository path", command)) };
  if (flags.base) body.baseRef = flags.base;
  if (flags.name) body.name = flags.name;
  const permissions = permissionsFromFlags(flags);
  if (Object.keys(permissions).length > 0) body.permissions = permissions;
  const resources: Record<string, number> = {};
  if (typeof flags.memory === "string") resources.memoryMb = positiveNumber("memory", flags.memory, "2048", command);
  if (typeof flags.cpus === "string") resources.cpus = positiveNumber("cpus", flags.cpus, "1.5", command);
  if (Object.keys(resources).length > 0) body.resources = resources;
  const worker = await withSpinner(ctx, !json, `creating a worker on ${body.repo as string}`, () =>
    call(client.spawn(body as SpawnInput)),
  );
  print(
    worker,
    () =>
      `${color(ctx, 1, safe(worker.id))} ${statusColor(ctx, safe(worker.status))} on ${safe(worker.branch)}\nMCP: ${safe(worker.mcpUrl)}`,
  );
  return 0;
}

async function listWorkers({ ctx, client, call, print }: CommandRun): Promise<number> {
  const workers = await call(client.list());
  print({ workers }, () =>
    workers.length === 0
      ? "no workers"
      : table([
          ["ID", "NAME", "STATUS", "BRANCH", "NETWORK", "REPO"],
          ...workers.map((w) => [
            safe(w.id),
            safe(w.name),
            statusColor(ctx, safe(w.status)),
            safe(w.branch),
            safe(w.network ?? "none"),
            safe(w.repo),
          ]),
        ]),
  );
  return 0;
}

async function removeWorker({ command, flags, first, client, call, print }: CommandRun): Promise<number> {
  const result = await call(
    client.remove(requireValue(first, "the worker id", command), { keepWorkspace: flags["keep-workspace"] === true }),
  );
  print(result, () =>
    safe(`removed ${result.id}${result.workspace ? ` (workspace kept at ${result.workspace})` : ""}`),
  );
  return 0;
}

async function printMcpConfig({ command, ctx, first, client, call }: CommandRun): Promise<number> {
  const worker = await call(client.get(requireValue(first, "the worker id", command)));
  ctx.stdout(
    `${stringifyForTerminal({ mcpServers: { [`workcell-${worker.name}`]: { type: "http", url: worker.mcpUrl, headers: client.headers } } })}\n`,
  );
  return 0;
}

/** spawn, ls, rm and mcp-config. */
export const WORKER_COMMANDS: Record<string, ClientCommand> = {
  spawn: {
    options: {
      ...PERMISSION_OPTIONS,
      base: { type: "string" },
      name: { type: "string" },
      memory: { type: "string" },
      cpus: { type: "string" },
    },
    run: spawnWorker,
  },
  ls: { options: {}, run: listWorkers },
  rm: { options: { "keep-workspace": { type: "boolean" } }, run: removeWorker },
  "mcp-config": { options: {}, run: printMcpConfig },
};
