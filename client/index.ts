/**
 * The typed client for the workcell control plane:
 *
 *   import { WorkcellClient } from "workcell/client";
 *   const workcell = new WorkcellClient({ url: "http://127.0.0.1:7070", token });
 *   const { mcpUrl } = await workcell.spawn({ repo: "/path/to/repo" });
 *
 * It only speaks HTTP (fetch), so it runs in Node ≥ 20, Deno, Bun and browsers. Its types
 * come from the zod schemas the control plane validates with; everything it imports from
 * outside client/ is type-only and vanishes from the built file.
 */
export { resolveControlPlaneUrl } from "./control-plane-url.js";
export type { EventFilter } from "./event-stream.js";
export type { ShellRequest, ShellTerminal } from "./shell-request.js";
export type {
  Approval,
  ApprovalStatus,
  Decision,
  DiffResult,
  ErrorCode,
  ExecInput,
  ExecResult,
  ExportResult,
  PermissionsInput,
  Policy,
  PoolInput,
  PoolStatus,
  RemoveResult,
  SpawnInput,
  Task,
  WorkcellEvent,
  WorkerInfo,
} from "./types.js";
export { WorkcellClient, type WorkcellClientOptions } from "./workcell-client.js";
export { WorkcellError } from "./workcell-error.js";
