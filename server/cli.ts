#!/usr/bin/env node
// The control plane's own commands (serve, build-image). bin/workcell.mjs sends every other
// command to the client CLI in cli/, which talks to a running plane through client/.
import { escapeControls } from "../contract/terminal-text.js";
import { loadConfig } from "../runtime/config/config.js";
import { DockerDriver } from "../runtime/docker/docker-driver.js";
import { AppError } from "../runtime/errors/app-error.js";
import { ensureSandboxImage } from "../runtime/image/sandbox-image.js";
import { PROJECT_ROOT, startControlPlane } from "./control-plane.js";

/** The commands that start or build the control plane itself; every other command is the client CLI's. */
const PLANE_COMMANDS: ReadonlySet<string> = new Set(["serve", "build-image"]);

const progress = (line: string) => process.stderr.write(`  ${line}\n`);

/** Prints a failure of serve or build-image: the message of an expected error, else the stack. Answers the exit code. */
function reportFailure(error: unknown): number {
  const message =
    error instanceof AppError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`workcell: ${escapeControls(message)}\n`);
  return 1;
}

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command === undefined || !PLANE_COMMANDS.has(command)) {
    process.stderr.write(
      `workcell: server/cli.ts runs the control plane's commands (serve, build-image); got ${command === undefined ? "none" : `"${escapeControls(command)}"`}. Run every other command, and --help, through bin/workcell.mjs (npx workcell ${command === undefined ? "--help" : escapeControls(command)}).\n`,
    );
    return 2;
  }
  if (command === "build-image") {
    const tag = await ensureSandboxImage(new DockerDriver(), PROJECT_ROOT, progress);
    process.stdout.write(`${tag}\n`);
    return 0;
  }
  const config = loadConfig(process.env);
  process.stderr.write("workcell: checking the Docker engine and the sandbox image...\n");
  const plane = await startControlPlane(config, { onProgress: progress, hostEnv: process.env });
  const tokenLine =
    plane.tokenSource === "env"
      ? "token: (from WORKCELL_TOKEN)"
      : `token: ${plane.token}${plane.tokenSource === "generated" ? `  (new; saved to ${plane.tokenFile}, mode 0600)` : `  (from ${plane.tokenFile})`}`;
  process.stdout.write(
    `workcell control plane listening on ${plane.url}\n${tokenLine}\nimage: ${plane.image}\nruntime: ${plane.runtime.runtime} (${plane.runtime.source === "configured" ? "WORKCELL_RUNTIME" : "runsc when offered, else the engine's default"})\n`,
  );
  // Ready to paste into another shell, where the CLI, the typed client and the examples read it.
  const tokenValue = plane.tokenSource === "env" ? '"$WORKCELL_TOKEN"' : plane.token;
  process.stdout.write(`\nIn another shell:\n  export WORKCELL_URL=${plane.url} WORKCELL_TOKEN=${tokenValue}\n`);
  const shutdown = async () => {
    process.stderr.write("workcell: shutting down (worker containers keep running)...\n");
    await plane.close();
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown());
  process.once("SIGTERM", () => void shutdown());
  return -1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = reportFailure(error);
  },
);
