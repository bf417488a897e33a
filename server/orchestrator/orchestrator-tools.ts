import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { OrchestratorDeps } from "./orchestrator-deps.js";
import { registerPipelineTools } from "./pipeline-tools.js";
import { registerWorkerTools } from "./worker-tools.js";
import { registerWorkspaceTools } from "./workspace-tools.js";

export type { OrchestratorDeps } from "./orchestrator-deps.js";

/** Registers the worker lifecycle, inspection and pipeline tools on the orchestrator's server. */
export function registerOrchestratorTools(server: McpServer, deps: OrchestratorDeps): void {
  // The order is the order tools/list answers in.
  registerWorkerTools(server, deps);
  registerWorkspaceTools(server, deps);
  registerPipelineTools(server, deps);
}
