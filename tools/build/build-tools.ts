import { readFileSync } from "node:fs";
import path from "node:path";
import { pathExists } from "../fs/exists.js";
import { z } from "zod";
import type { Admit } from "../approvals/admission-client.js";
import type { AccessControl } from "../permissions/access-control.js";
import { recordValidation } from "../gate/finish-gate.js";
import type { GateState } from "../../contract/gate.js";
import { workspaceFingerprint } from "../git/scratch-index.js";
import { inspectProject } from "../project/project-tool.js";
import type { ToolRegistry } from "../registry.js";
import { capText } from "../shell/output-collector.js";
import { runProcess } from "../shell/run-process.js";
import { errorResult, textResult } from "../tool-result.js";
import {
  isEnvironmentFailure,
  parseDiagnostics,
  summarizeDiagnostics,
  unlocatedFailure,
  type Diagnostic,
} from "./parse-diagnostics.js";
import { VALIDATION_LANGUAGES, validationCommand } from "./validation-command.js";
import { GATE_META_KEY } from "../../contract/wire.js";

const BUILD_TIMEOUT_MS = 15 * 60_000;
const MAX_BUILD_OUTPUT_BYTES = 4 * 1024 * 1024;
const OUTPUT_TAIL_CHARS = 4_000;
const MAX_LISTED = 50;
/** Keeps toolchains from reaching for a network the sandbox does not have. */
export const OFFLINE_ENV = {
  CI: "true",
  GOFLAGS: "-mod=mod",
  GOPROXY: "off",
  GOTOOLCHAIN: "local",
  CARGO_NET_OFFLINE: "true",
  NO_COLOR: "1",
};

/** The mutable gate of one session. */
export interface GateHolder {
  state: GateState;
}

/** Where Debian's packaged type definitions live in the sandbox image (@types/node among them). */
const IMAGE_TYPE_ROOTS = "/usr/share/nodejs/@types";

/**
 * Runs a compile-like command and reads its diagnostics. A failure whose output names no
 * error still counts one (without a place), and `environment` says whether the failure is
 * the sandbox's (a missing program or type definitions) rather than the code's.
 */
export async function runAndParse(command: string, cwd: string, signal: AbortSignal) {
  const run = await runProcess({
    command,
    cwd,
    timeoutMs: BUILD_TIMEOUT_MS,
    maxOutputBytes: MAX_BUILD_OUTPUT_BYTES,
    env: OFFLINE_ENV,
    signal,
  });
  const combined = `${run.stdout}\n${run.stderr}`;
  const diagnostics = parseDiagnostics(combined);
  const failed = run.exitCode !== 0 || run.timedOut;
  const parsedErrors = diagnostics.filter((d) => d.severity === "error").length;
  const summary = summarizeDiagnostics(
    failed && parsedErrors === 0
      ? [...diagnostics, unlocatedFailure(run.spawnError ?? combined, run.exitCode, run.timedOut)]
      : diagnostics,
  );
  const success = !failed && summary.errorCount === 0;
  const environment = !success && isEnvironmentFailure(run.exitCode, summary.errors);
  return { run, summary, success, environment, tail: capText(combined.trim(), OUTPUT_TAIL_CHARS).text };
}

/** Whether the workspace's tsconfig.json sets compilerOptions.types (read loosely: it may hold comments). */
function tsconfigNamesTypes(root: string): boolean {
  try {
    return /"types"\s*:/.test(readFileSync(path.join(root, "tsconfig.json"), "utf8"));
  } catch {
    return false;
  }
}

function listDiagnostics(diagnostics: readonly Diagnostic[]): string {
  const place = (d: Diagnostic) =>
    d.file === null ? "" : `${d.file}:${d.line}${d.column === null ? "" : `:${d.column}`} `;
  const lines = diagnostics
    .slice(0, MAX_LISTED)
    .map((d) => `${place(d)}${d.severity}${d.code ? ` ${d.code}` : ""}: ${d.message}`);
  if (diagnostics.length > MAX_LISTED) lines.push(`... and ${diagnostics.length - MAX_LISTED} more`);
  return lines.join("\n");
}

/** Registers build_run and code_validate. */
export function registerBuildTools(
  registry: ToolRegistry,
  access: AccessControl,
  gate: GateHolder,
  admit: Admit,
): void {
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
      if (chosen === null)
        return errorResult(
          "No build command was given and none could be detected (project_info says unknown). Pass command.",
        );
      await access.checkCommand(chosen);
      const release = await admit("build_run");
      const { run, summary, success, environment, tail } = await runAndParse(
        chosen,
        directory.absolute,
        signal,
      ).finally(release);
      const structured = {
        success,
        ...summary,
        command: chosen,
        exitCode: run.exitCode,
        timedOut: run.timedOut,
        durationMs: run.durationMs,
        environmentFailure: environment,
        output: tail,
      };
      const headline = `${success ? "Build succeeded" : "Build failed"}: ${summary.errorCount} errors, ${summary.warningCount} warnings (exit code ${run.exitCode ?? "none"}${run.timedOut ? ", timed out" : ""}) — ${chosen}`;
      const detail = listDiagnostics([...summary.errors, ...summary.warnings]);
      const text = [headline, detail, success ? "" : `Output:\n${tail}`].filter(Boolean).join("\n");
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
      const hasFile = (relative: string) => pathExists(path.join(root, relative));
      // Without the workspace's own node_modules, tsc finds @types/node and the rest in Debian's packages.
      const imageTypes =
        !hasFile("node_modules/@types") && pathExists(IMAGE_TYPE_ROOTS)
          ? { roots: IMAGE_TYPE_ROOTS, tsconfigNamesTypes: tsconfigNamesTypes(root) }
          : undefined;
      const command = validationCommand(project, chosenLanguage, hasFile, imageTypes);
      if (command === null) {
        return errorResult(
          `No way to validate a "${chosenLanguage}" project was found. Pass language, or add a build script.`,
        );
      }
      await access.checkCommand(command);
      const release = await admit("code_validate");
      const { run, summary, success, environment, tail } = await runAndParse(command, root, signal).finally(release);
      // A failure of the sandbox's environment is not the agent's: it neither passes nor counts toward the failure limit.
      if (!environment) gate.state = recordValidation(gate.state, success, await workspaceFingerprint(root));
      const structured = {
        success,
        language: chosenLanguage,
        ...summary,
        command,
        exitCode: run.exitCode,
        consecutiveFailures: gate.state.failures,
        environmentFailure: environment,
        ...(success ? {} : { output: tail }),
      };
      const headline = success
        ? `Validation passed (${chosenLanguage}): no errors${summary.warningCount ? `, ${summary.warningCount} warnings` : ""}. finish is now accepted for this exact workspace content.`
        : environment
          ? `Validation could not run (${chosenLanguage}): the sandbox lacks something the check needs (exit code ${run.exitCode ?? "none"}). This is not counted as a failure of the code (consecutive failures: ${gate.state.failures}); fix the environment or pass another language.`
          : `Validation failed (${chosenLanguage}): ${summary.errorCount} errors (exit code ${run.exitCode ?? "none"}). Consecutive failures: ${gate.state.failures}.`;
      const text = [
        headline,
        listDiagnostics([...summary.errors, ...summary.warnings]),
        success ? "" : `Output:\n${tail}`,
      ]
        .filter(Boolean)
        .join("\n");
      return { ...textResult(text, structured), _meta: { [GATE_META_KEY]: gate.state } };
    },
  });
}
