import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { dangerousGitInCommand } from "../permissions/dangerous-git.js";

import type { RequestApproval } from "./approval-client.js";

/** Which calls need a human, as the worker's control file says. */
export interface ApprovalSettings {
  tools: string[];
  dangerousGit: boolean;
}

/** Why a call needs approval, or undefined. Pure. */
export function approvalReason(
  settings: ApprovalSettings,
  tool: string,
  args: Record<string, unknown>,
): string | undefined {
  if (settings.tools.includes(tool)) return `${tool} always needs approval on this worker`;
  if (!settings.dangerousGit) return undefined;
  if (tool === "git_stash" && args.action === "drop") return "git stash drop deletes stashed work";
  const command = args.command;
  if (typeof command === "string" || (Array.isArray(command) && command.every((part) => typeof part === "string"))) {
    return dangerousGitInCommand(command as string | string[]);
  }
  return undefined;
}

/** What the gate decided: run (maybe with the reviewer's input) or answer without running. */
export type GateOutcome = { run: true; args: Record<string, unknown> } | { run: false; result: CallToolResult };

/**
 * Holds a gated call until the reviewer decides: approve runs it as asked, edit runs it
 * with the reviewer's input, reject answers `Rejected by reviewer: <reason>`.
 */
export async function gateCall(
  settings: ApprovalSettings,
  approve: RequestApproval,
  tool: string,
  args: Record<string, unknown>,
): Promise<GateOutcome> {
  const reason = approvalReason(settings, tool, args);
  if (reason === undefined) return { run: true, args };
  const answer = await approve({ kind: "tool", tool, input: args, description: reason });
  if (answer.decision === "approve") return { run: true, args };
  if (answer.decision === "edit") return { run: true, args: answer.input ?? args };
  const reason_ = answer.reason ?? "no reason given";
  return {
    run: false,
    result: {
      content: [{ type: "text", text: `Rejected by reviewer: ${reason_}` }],
      isError: true,
      structuredContent: { rejected: true, reason: reason_ },
    },
  };
}
