import type { PermissionsInput } from "../permissions/policy.js";

/** A named preset of permissions and resources a new worker can start from. */
export interface WorkerTemplate {
  readonly description: string;
  readonly permissions: PermissionsInput;
  readonly resources: { cpus?: number; memoryMb?: number; pids?: number; tmpMb?: number; diskMb?: number };
}

/**
 * The templates an orchestrator can spawn workers from. All keep the secure defaults (no
 * network, workspace only); they differ in how much room builds and tests get.
 */
export const TEMPLATES: Readonly<Record<string, WorkerTemplate>> = Object.freeze({
  api: {
    description:
      "A backend service: room for a test database in-process and a full test suite (2 CPUs, 3 GB, 1024 processes).",
    permissions: {},
    resources: { cpus: 2, memoryMb: 3072, pids: 1024, tmpMb: 1024 },
  },
  frontend: {
    description: "A web frontend: bundlers and browsers-in-tests need memory and temp space (2 CPUs, 4 GB, 2 GB /tmp).",
    permissions: {},
    resources: { cpus: 2, memoryMb: 4096, pids: 1024, tmpMb: 2048 },
  },
  cli: {
    description: "A command-line tool: small and fast (1 CPU, 1 GB, 256 processes).",
    permissions: {},
    resources: { cpus: 1, memoryMb: 1024, pids: 256, tmpMb: 256 },
  },
  library: {
    description: "A library: builds and unit tests only (1 CPU, 2 GB).",
    permissions: {},
    resources: { cpus: 1, memoryMb: 2048, pids: 512, tmpMb: 512 },
  },
  mcp: {
    description:
      "An MCP server: starts and exercises its own server processes (1 CPU, 2 GB, 512 processes); no network beyond loopback.",
    permissions: {},
    resources: { cpus: 1, memoryMb: 2048, pids: 512, tmpMb: 512 },
  },
});
