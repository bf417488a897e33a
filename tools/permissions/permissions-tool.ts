import { z } from "zod";
import type { ToolRegistry } from "../registry.js";
import { textResult } from "../tool-result.js";
import type { AccessControl } from "./access-control.js";
import { PermissionKindSchema } from "../../contract/policy.js";

/** Registers `permissions_query`, the worker's view of its own policy (like Deno.permissions.query). */
export function registerPermissionsTool(registry: ToolRegistry, access: AccessControl): void {
  registry.register({
    name: "permissions_query",
    description:
      'Ask whether an access is allowed before trying it: answers granted, denied, or prompt (a human would be asked). kind read/write take a path, net a "host:port", run a program, env a variable name.',
    inputSchema: {
      kind: PermissionKindSchema.describe("Kind of access"),
      target: z.string().min(1).max(4096).describe('Path, "host:port", program name or env var name'),
    },
    annotations: { readOnlyHint: true },
    handler: async ({ kind, target }) => {
      const state = access.query(kind, target);
      const mode = access.policy().mode;
      const note = mode === "audit" && state !== "granted" ? " (audit mode: it would be allowed and recorded)" : "";
      return textResult(`${kind} ${target}: ${state}${note}`, { kind, target, state, mode });
    },
  });
}
