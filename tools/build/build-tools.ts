import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Admit } from "../approvals/admission-client.js";
import type { AccessControl } from "../permissions/access-control.js";
import { GATE_META_KEY, recordValidation, type GateState } from "../gate/finish-gate.js";
import { workspaceFingerprint } from "../git/scratch-index.js";
import { inspectProject } from "../project/project-tool.js";
import type { ToolRegistry } from "../registry.js";
import { capText } from "../shell/output-collector.js";
import { runProcess } from "../shell/run-process.js";
import { errorResult, textResult } from "../tool-result.js";
import { parseDiagnostics, summarizeDiagnostics, type Diagnostic } from "./parse-diagnostics.js";
import { VALIDATION_LANGUAGES, validationCommand } from "./validation-command.js";

const BUILD_TIMEOUT_MS = 15 * 60_000;
const MAX_BUILD_OUTPUT_BYTES = 4 * 1024 * 1024;
const OUTPUT_TAIL_CHARS = 4_000;
const MAX_LISTED = 50;
/** Keeps toolchains from reaching for a network the sandbox does not have. */
export const OFFLINE_ENV = { CI: "true", GOFLAGS: "-mod=mod", GOPROXY: "off", GOTOOLCHAIN: "local", CARGO_NET_OFFLINE: "true", NO_COLOR: "1" };

/** The mutable gate of one session. */
export interface GateHolder {
  state: GateState;
}

/** Runs a compile-like command and reads its diagnostics. */
export async function runAndParse(command: string, cwd: string, signal: AbortSignal) {
  const run = await runProcess({ command, cwd, timeoutMs: BUILD_TIMEOUT_MS, maxOutputBytes: MAX_BUILD_OUTPUT_BYTES, env: OFFLINE_ENV, signal });
  const combined = `${run.stdout}\n${run.stderr}`;
  const summary = summarizeDiagnostics(parseDiagnostics(combined));
  const success = run.exitCode === 0 && !run.timedOut && summary.errorCount === 0;
  return { run, summary, success, tail: capText(combined.trim(), OUTPUT_TAIL_CHARS).text };
}

function listDiagnostics(diagnostics: readonly Diagnostic[]): string {
  const lines = diagnostics.slice(0, MAX_LISTED).map((d) => `${d.file}:${d.line}${d.column === null ? "" : `:${d.column}`} ${d.severity}${d.code ? ` ${d.code}` : ""}: ${d.message}`);
  if (diagnostics.length > MAX_LISTED) lines.push(`... and ${diagnostics.length - MAX_LISTED} more`);
  return lines.join("\n");
}

/** Registers build_run and code_validate. */
export function registerBuildTools(registry: ToolRegistry, access: AccessControl, gate: GateHolder, admit: Admit): void {
  const root = access.workspace;
  registry.register({
    name: "build_run",
    description:
      "Run the build (default: the detected build command) and answer structured errors and warnings parsed from the compiler output: {success, errorCount, warningCount, errors: [{file, line, column, code, message}], warnings, command, exitCode}.",
    inputSchema: {
      command: z.string().min(1).optional().describe("Build command; default: project_info's buildCommand"),
      cwd: z.string().optional().describe("Working directory relative to /workspace"),
    },
    annotations: { destructiveHint: false, openWorldHint: false },
    handler: async ({ command, cwd }, { signal }) => {
      const directory = await access.resolve(cwd ?? ".", "read");
      const chosen = command ?? inspectProject(directory.absolute).buildCommand;
      if (chosen === null) return errorResult("No build command was given and none could be detected (project_info says unknown). Pass command.");
      await access.checkCommand(chosen);
      const release = await admit("build_run");
      const { run, summary, success, tail } = await runAndParse(chosen, directory.absolute, signal).finally(release);
      const structured = { success, ...summary, command: chosen, exitCode: run.exitCode, timedOut: run.timedOut, durationMs: run.durationMs };
      const headline = `${success ? "Build succeeded" : "Build failed"}: ${summary.errorCount} errors, ${summary.warningCount} warnings (exit code ${run.exitCode ?? "none"}${run.timedOut ? ", timed out" : ""}) — ${chosen}`;
      const detail = listDiagnostics([...summary.errors, ...summary.warnings]);
      const text = [headline, detail, !success && summary.errorCount === 0 ? `Output:\n${tail}` : ""].filter(Boolean).join("\n");
      return textResult(text, structured);
    },
  });

  registry.register({
    name: "code_validate",
    description:
      "Compile or type-check the whole workspace with the right tool for its language (tsc --noEmit, Python compile, go build+vet, cargo check, javac via Gradle/Maven, dotnet build). finish is only accepted for workspace content that passed this.",
    inputSchema: {
      language: z.enum(VALIDATION_LANGUAGES).optional().describe("Language to validate; default: the detected one"),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    handler: async ({ language }, { signal }) => {
      const project = inspectProject(root);
      const chosenLanguage = language ?? project.language;
      const command = validationCommand(project, chosenLanguage, (relative) => existsSync(path.join(root, relative)));
      if (command === null) {
        return errorResult(`No way to validate a "${chosenLanguage}" project was found. Pass language, or add a build script.`);
      }
      await access.checkCommand(command);
      const release = await admit("code_validate");
      const { run, summary, success, tail } = await runAndParse(command, root, signal).finally(release);
      gate.state = recordValidation(gate.state, success, await workspaceFingerprint(root));
      const structured = { success, language: chosenLanguage, ...summary, command, exitCode: run.exitCode, consecutiveFailures: gate.state.failures };
      const headline = success
        ? `Validation passed (${chosenLanguage}): no errors${summary.warningCount ? `, ${summary.warningCount} warnings` : ""}. finish is now accepted for this exact workspace content.`
        : `Validation failed (${chosenLanguage}): ${summary.errorCount} errors (exit code ${run.exitCode ?? "none"}). Consecutive failures: ${gate.state.failures}.`;
      const text = [headline, listDiagnostics([...summary.errors, ...summary.warnings]), !success && summary.errorCount === 0 ? `Output:\n${tail}` : ""].filter(Boolean).join("\n");
      return { ...textResult(text, structured), _meta: { [GATE_META_KEY]: gate.state } };
    },
  });
}
