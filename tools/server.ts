import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerBuildTools, type GateHolder } from "./build/build-tools.js";
import { registerCodeEdit } from "./edit/code-edit.js";
import { registerReadTools } from "./fs/read-tools.js";
import { registerWriteTools } from "./fs/write-tools.js";
import { initialGate, type GateState } from "./gate/finish-gate.js";
import { registerFinishTool } from "./gate/finish-tool.js";
import { registerGitTools } from "./git/git-tools.js";
import { registerPipelineTool } from "./pipeline/run-pipeline.js";
import { registerProjectTool } from "./project/project-tool.js";
import { registerCodingPrompt } from "./prompts/coding-workflow.js";
import { ToolRegistry } from "./registry.js";
import { registerSearchTools } from "./search/search-tools.js";
import { ProcessManager } from "./shell/process-manager.js";
import { registerProcessTools } from "./shell/process-tools.js";
import { registerShellTool } from "./shell/shell-tool.js";
import { registerTestTool } from "./testing/test-tool.js";

/** The workspace every tool is confined to. */
export const WORKSPACE_ROOT = "/workspace";

/** Builds the in-container MCP server with every tool family registered on `root`. */
export function createToolServer(options: { root?: string; gate?: GateState; version?: string } = {}): { server: McpServer; registry: ToolRegistry } {
  const root = options.root ?? WORKSPACE_ROOT;
  const server = new McpServer(
    { name: "workcell-tools", version: options.version ?? "0.1.0" },
    {
      capabilities: { tools: {}, prompts: {}, logging: {} },
      instructions:
        "Tools of a workcell worker. Every tool runs inside the worker's sandbox container; paths are relative to /workspace. Workflow: plan, edit (code_edit), code_validate, test_run, finish.",
    },
  );
  const registry = new ToolRegistry(server);
  const gate: GateHolder = { state: options.gate ?? initialGate() };
  registerReadTools(registry, root);
  registerWriteTools(registry, root);
  registerCodeEdit(registry, root);
  registerSearchTools(registry, root);
  registerShellTool(registry, root);
  registerProcessTools(registry, root, new ProcessManager());
  registerGitTools(registry, root);
  registerProjectTool(registry, root);
  registerBuildTools(registry, root, gate);
  registerTestTool(registry, root);
  registerFinishTool(registry, root, gate);
  registerPipelineTool(registry);
  registerCodingPrompt(server, root);
  return { server, registry };
}
