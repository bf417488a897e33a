import type { AccessControl } from "../permissions/access-control.js";
import type { ToolRegistry } from "../registry.js";
import { createCodeContext } from "./code-context.js";
import { registerGenerateTool } from "./generate-tool.js";
import { registerInspectTool } from "./inspect-tool.js";
import { registerNavigateTool } from "./navigate-tool.js";
import { registerRefactorTool } from "./refactor-tool.js";

/** Registers code_navigate, code_inspect, code_refactor and code_generate. */
export function registerCodeTools(registry: ToolRegistry, access: AccessControl): void {
  const code = createCodeContext(access);
  registerNavigateTool(registry, code);
  registerInspectTool(registry, code);
  registerRefactorTool(registry, code);
  registerGenerateTool(registry, code);
}
