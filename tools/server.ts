import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { registerBuildTools, type GateHolder } from "./build/build-tools.js";
import { registerCodeTools } from "./code/code-tools.js";
import { registerCodeEdit } from "./edit/code-edit.js";
import { registerReadTools } from "./fs/read-tools.js";
import { registerWriteTools } from "./fs/write-tools.js";
import { initialGate } from "./gate/finish-gate.js";
import type { GateState } from "../contract/gate.js";
import { registerFinishTool } from "./gate/finish-tool.js";
import { registerGitTools } from "./git/git-tools.js";
import { registerCallSequenceTool } from "./composition/call-sequence-tool.js";
import { registerProjectTool } from "./project/project-tool.js";
import { registerCodingPrompt } from "./prompts/coding-workflow.js";
import { AccessControl } from "./permissions/access-control.js";
import { registerPermissionsTool } from "./permissions/permissions-tool.js";
import { PolicySource } from "./permissions/policy-file.js";
import { createAdmitter } from "./approvals/admission-client.js";
import { createApprover } from "./approvals/approval-client.js";
import { gateCall } from "./approvals/approval-gate.js";
import { registerQualityTool } from "./quality/quality-tool.js";
import { ToolRegistry } from "./registry.js";
import { registerSearchTools } from "./search/search-tools.js";
import { ProcessManager } from "./shell/process-manager.js";
import { registerProcessTools } from "./shell/process-tools.js";
import { registerShellTool } from "./shell/shell-tool.js";
import { registerTestTool } from "./testing/test-tool.js";
import type { AuditEntry } from "../contract/policy.js";
import { AUDIT_META_KEY } from "../contract/wire.js";
import { CONTAINER_WORKSPACE } from "../contract/container.js";

/** Attaches audit entries a call recorded to its result's `_meta`, for the control plane. */
function withAudit(result: CallToolResult, entries: AuditEntry[]): CallToolResult {
  if (entries.length === 0) return result;
  return { ...result, _meta: { ...result._meta, [AUDIT_META_KEY]: entries } };
}

/** Builds the in-container MCP server with every tool family registered on `root`. */
export function createToolServer(
  options: { root?: string; gate?: GateState; version?: string; policy?: PolicySource } = {},
): { server: McpServer; registry: ToolRegistry } {
  const root = options.root ?? CONTAINER_WORKSPACE;
  const server = new McpServer(
    { name: "workcell-tools", version: options.version ?? "0.1.0" },
    {
      capabilities: { tools: {}, prompts: {}, logging: {} },
      instructions:
        "Tools of a workcell worker. Every tool runs inside the worker's sandbox container; paths are relative to /workspace. Workflow: plan, edit (code_edit), code_validate, test_run, finish.",
    },
  );
  const policy = options.policy ?? new PolicySource();
  const approve = createApprover(server);
  const admit = createAdmitter(server);
  const access = new AccessControl(root, policy, approve);
  const registry = new ToolRegistry(
    server,
    (result) => withAudit(result, access.drainAudit()),
    (tool, args) => gateCall(policy.current().approvals, approve, tool, args),
  );
  const gate: GateHolder = { state: options.gate ?? initialGate() };
  registerReadTools(registry, access);
  registerWriteTools(registry, access);
  registerCodeEdit(registry, access);
  registerCodeTools(registry, access);
  registerSearchTools(registry, access);
  registerShellTool(registry, access, admit);
  registerProcessTools(registry, access, new ProcessManager());
  registerGitTools(registry, root);
  registerProjectTool(registry, root);
  registerBuildTools(registry, access, gate, admit);
  registerTestTool(registry, access, admit);
  registerPermissionsTool(registry, access);
  registerQualityTool(registry, root);
  registerFinishTool(registry, root, gate);
  registerCallSequenceTool(registry);
  registry.register({
    name: "ping",
    description: "Answers pong: a no-op to check the worker's tool server is alive (and to measure a round trip).",
    inputSchema: {},
    annotations: { readOnlyHint: true, idempotentHint: true },
    handler: async () => ({ content: [{ type: "text", text: "pong" }] }),
  });
  registerCodingPrompt(server, root);
  return { server, registry };
}
