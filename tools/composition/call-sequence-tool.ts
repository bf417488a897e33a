import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ToolRegistry } from "../registry.js";
import { textResult, type ToolCallContext } from "../tool-result.js";

const MAX_STEPS = 50;
const MAX_STEP_TEXT_CHARS = 4_000;
const NOT_IN_PIPELINES = new Set(["run_pipeline"]);

/**
 * An object with any fields, published as plain `{type: "object"}`. Zod would publish its
 * values as `additionalProperties: {}`, a schema without a type, which strict clients refuse.
 */
function anyObject(description: string) {
  return z.record(z.string(), z.unknown()).meta({ description, additionalProperties: undefined });
}

/** The text of a tool result (its text blocks joined). */
export function resultText(result: CallToolResult): string {
  return result.content
    .filter((block): block is { type: "text"; text: string } => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

/**
 * Replaces `{{previous}}` with the previous step's text and `{{step:N}}` with step N's
 * (1-based), in every string of `args`, however deep. Pure.
 */
export function substituteOutputs(args: unknown, outputs: readonly string[]): unknown {
  if (typeof args === "string") {
    return args
      .replace(/\{\{previous\}\}/g, outputs.at(-1) ?? "")
      .replace(/\{\{step:(\d+)\}\}/g, (_, n: string) => outputs[Number(n) - 1] ?? "");
  }
  if (Array.isArray(args)) return args.map((item) => substituteOutputs(item, outputs));
  if (args !== null && typeof args === "object") {
    return Object.fromEntries(Object.entries(args).map(([key, value]) => [key, substituteOutputs(value, outputs)]));
  }
  return args;
}

/** Registers `run_pipeline`: several tool calls in one, without a model round-trip between them. */
export function registerCallSequenceTool(registry: ToolRegistry): void {
  registry.register({
    name: "run_pipeline",
    description:
      "Run several tools in order in one call. A step's string arguments may use {{previous}} (the previous step's text output) or {{step:N}}. onError fail_fast (default) stops at the first failing step; continue runs them all. Answers each step's result.",
    inputSchema: {
      steps: z
        .array(
          z.object({
            tool: z.string().min(1).describe("Tool name, e.g. code_edit"),
            args: anyObject("The tool's arguments").optional(),
          }),
        )
        .min(1)
        .max(MAX_STEPS)
        .describe("Steps to run in order"),
      onError: z
        .enum(["fail_fast", "continue"])
        .optional()
        .describe("What to do when a step fails (default fail_fast)"),
    },
    annotations: { destructiveHint: true },
    handler: async ({ steps, onError }, context: ToolCallContext) => {
      const outputs: string[] = [];
      const results: { step: number; tool: string; isError: boolean; text: string; skipped?: boolean }[] = [];
      let failed = false;
      for (const [index, step] of steps.entries()) {
        if (failed && (onError ?? "fail_fast") === "fail_fast") {
          results.push({ step: index + 1, tool: step.tool, isError: false, text: "", skipped: true });
          continue;
        }
        const result = NOT_IN_PIPELINES.has(step.tool)
          ? {
              content: [{ type: "text" as const, text: `Error: ${step.tool} cannot run inside a pipeline.` }],
              isError: true,
            }
          : await registry.call(step.tool, substituteOutputs(step.args ?? {}, outputs), context);
        const text = resultText(result);
        outputs.push(text);
        const isError = result.isError === true;
        failed ||= isError;
        results.push({
          step: index + 1,
          tool: step.tool,
          isError,
          text: text.length > MAX_STEP_TEXT_CHARS ? `${text.slice(0, MAX_STEP_TEXT_CHARS)}\n[... truncated]` : text,
        });
      }
      const body = results
        .map(
          (r) =>
            `## Step ${r.step}: ${r.tool} — ${r.skipped ? "skipped (an earlier step failed)" : r.isError ? "failed" : "ok"}${r.text ? `\n${r.text}` : ""}`,
        )
        .join("\n\n");
      return {
        ...textResult(
          `Pipeline ${failed ? "failed" : "succeeded"} (${results.filter((r) => !r.skipped).length}/${steps.length} steps run)\n\n${body}`,
          { success: !failed, steps: results },
        ),
        isError: failed,
      };
    },
  });
}
