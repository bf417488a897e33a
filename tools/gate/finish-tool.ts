import { z } from "zod";
import type { GateHolder } from "../build/build-tools.js";
import { runGit } from "../git/git-tools.js";
import { workspaceFingerprint } from "../git/scratch-index.js";
import type { ToolRegistry } from "../registry.js";
import { errorResult, textResult } from "../tool-result.js";
import { decideFinish, MAX_FAILED_VALIDATIONS } from "./finish-gate.js";
import { GATE_META_KEY } from "../../contract/wire.js";
import { MAX_TASK_TEXT } from "../../contract/gate.js";

/** Registers `finish`, the gate that refuses to end a task on unvalidated content. */
export function registerFinishTool(registry: ToolRegistry, root: string, gate: GateHolder): void {
  registry.register({
    name: "finish",
    description:
      "Declare the task done. Refused while the workspace differs from the last content that passed code_validate (edits made any way count), listing what changed. After 5 consecutive failed validations, finish ends the task as failed.",
    inputSchema: { summary: z.string().min(1).max(MAX_TASK_TEXT).describe("What was done, for the reviewer") },
    annotations: { destructiveHint: false, idempotentHint: false },
    handler: async ({ summary }) => {
      const current = await workspaceFingerprint(root);
      const decision = decideFinish(gate.state, current, summary, new Date().toISOString());
      const meta = () => ({ _meta: { [GATE_META_KEY]: gate.state } });
      switch (decision.kind) {
        case "finished":
          gate.state = decision.state;
          return { ...textResult(`Task finished: ${summary}`, { finished: true, summary }), ...meta() };
        case "failed":
          gate.state = decision.state;
          return {
            ...errorResult(`Task failed: ${decision.reason}`, {
              finished: false,
              failed: true,
              reason: decision.reason,
            }),
            ...meta(),
          };
        case "refused": {
          if (decision.reason === "already_ended") {
            const task = gate.state.task;
            const why =
              task?.status === "failed"
                ? `it failed: ${task.reason ?? "no reason recorded"}`
                : `it finished: ${task?.summary ?? "no summary recorded"}`;
            return errorResult(
              `The task already ended at ${task?.at ?? "an earlier time"}; ${why}. Nothing more to finish in this task.`,
              {
                finished: false,
                refused: true,
                reason: "already_ended",
                task,
              },
            );
          }
          const changed = await changedFiles(root, gate.state.validatedTree);
          const why =
            decision.reason === "never_validated"
              ? "nothing has passed code_validate yet"
              : "the workspace changed since the last successful code_validate";
          const remaining = MAX_FAILED_VALIDATIONS - gate.state.failures;
          return errorResult(
            `finish refused: ${why}. Run code_validate, fix what it reports, then finish. (${remaining} failed validations left before the task fails.)\nChanged files:\n${changed.join("\n") || "(none listed)"}`,
            { finished: false, refused: true, reason: decision.reason, changedFiles: changed },
          );
        }
      }
    },
  });
}

/** Files that differ between the validated content and now (or HEAD and now when never validated). */
async function changedFiles(root: string, validatedTree: string | null): Promise<string[]> {
  const current = await workspaceFingerprint(root);
  const run = await runGit(root, ["diff", "--no-ext-diff", "--name-status", validatedTree ?? "HEAD", current]);
  const lines = run.stdout.split("\n").filter(Boolean);
  if (lines.length > 0 || validatedTree !== null) return lines;
  return ["(no changes since HEAD; validate anyway)"];
}
