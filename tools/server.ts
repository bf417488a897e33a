import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerFileTools } from "./fs/file-tools.js";
import { registerGitTools } from "./git/git-tools.js";
import { registerSearchTools } from "./search/search-tools.js";
import { registerShellTool } from "./shell/shell-tool.js";

/** The workspace every tool is confined to. */
export const WORKSPACE_ROOT = "/workspace";

/** Builds the in-container MCP server with every tool family registered on `root`. */
export function createToolServer(root: string = WORKSPACE_ROOT, version = "0.1.0"): McpServer {
  const server = new McpServer(
    { name: "workcell-tools", version },
    {
      capabilities: { tools: {}, logging: {} },
      instructions:
        "Tools of a workcell worker. Every tool runs inside the worker's sandbox container; paths are relative to /workspace.",
    },
  );
  registerFileTools(server, root);
  registerSearchTools(server, root);
  registerShellTool(server, root);
  registerGitTools(server, root);
  return server;
}
