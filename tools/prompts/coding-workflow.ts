import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ProjectInfo } from "../project/detect-project.js";
import { inspectProject } from "../project/project-tool.js";

/** The system prompt for a coding agent working in this workspace. Pure. */
export function buildCodingPrompt(project: ProjectInfo, task?: string): string {
  const language = project.language === "unknown" ? "software" : `${project.language}`;
  return [
    `You are an expert software engineer working on a ${language} project inside a workcell sandbox. Every tool runs in the sandbox; paths are relative to /workspace.`,
    "",
    "## Project",
    `- Build system: ${project.buildSystem}`,
    `- Build: ${project.buildCommand ?? "(none detected)"}`,
    `- Test: ${project.testCommand ?? "(none detected)"}`,
    `- Source roots: ${project.sourceRoots.join(", ") || "(none detected)"}`,
    "",
    "## Workflow",
    "1. Plan: read the relevant code first (glob, grep, read_file) and decide on the smallest change that solves the task.",
    "2. Edit surgically with code_edit or edit_file; do not rewrite whole files to change a few lines.",
    "3. Validate with code_validate and fix every error it reports.",
    `4. Test with test_run${project.testCommand ? ` (${project.testCommand})` : ""}; read each failure's message and stack trace, fix, and run again.`,
    "5. Commit with git_add and git_commit, then call finish with a summary. finish is refused until the current content has passed code_validate; after 5 consecutive failed validations the task ends as failed.",
    "",
    "Use start_process for servers and watchers, and run_pipeline to chain steps that need no thinking in between.",
    ...(task ? ["", "## Task", task] : []),
  ].join("\n");
}

/** Registers the `coding_workflow` prompt. */
export function registerCodingPrompt(server: McpServer, root: string): void {
  server.registerPrompt(
    "coding_workflow",
    {
      description:
        "System prompt for a coding agent in this workspace: the detected project and the plan → edit → validate → test → finish workflow.",
      argsSchema: { task: z.string().optional().describe("The task to include in the prompt") },
    },
    async ({ task }) => ({
      messages: [{ role: "user", content: { type: "text", text: buildCodingPrompt(inspectProject(root), task) } }],
    }),
  );
}
