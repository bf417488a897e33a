#!/usr/bin/env node
import { loadConfig } from "../runtime/config/config.js";
import { DockerDriver } from "../runtime/docker/docker-driver.js";
import { AppError } from "../runtime/errors/app-error.js";
import { ensureSandboxImage } from "../runtime/image/sandbox-image.js";
import { runClientCommand } from "./cli/commands.js";
import { escapeControls } from "./cli/terminal-text.js";
import { CliError } from "./cli/connection.js";
import { PROJECT_ROOT, startControlPlane } from "./control-plane.js";

const USAGE = `Usage: workcell <command> [options]

Control plane:
  serve         Start the control plane (builds the sandbox image first if it is missing)
  build-image   Build the sandbox image if it is missing, and print its tag

Workers (talk to a running control plane: --url/--token, else WORKCELL_URL/WORKCELL_TOKEN,
else the local data dir's token and http://127.0.0.1:7070; --json for scripts):
  spawn ls exec shell diff export rm logs approvals approve reject mcp-config
  'workcell <command> --help' shows each command's options and an example.

Environment: WORKCELL_HOST (127.0.0.1), WORKCELL_PORT (7070), WORKCELL_DATA_DIR (./.workcell),
WORKCELL_TOKEN (generated into <dataDir>/token when unset), DOCKER_HOST.`;

const progress = (line: string) => process.stderr.write(`  ${line}\n`);

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === "build-image") {
    const tag = await ensureSandboxImage(new DockerDriver(), PROJECT_ROOT, progress);
    process.stdout.write(`${tag}\n`);
    return 0;
  }
  if (command !== "serve") {
    return runClientCommand(command, argv.slice(1), {
      env: process.env,
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      isTty: process.stdout.isTTY === true,
    });
  }
  const config = loadConfig(process.env);
  process.stderr.write("workcell: checking the Docker engine and the sandbox image...\n");
  const plane = await startControlPlane(config, { onProgress: progress, hostEnv: process.env });
  const tokenLine =
    plane.tokenSource === "env" ? "token: (from WORKCELL_TOKEN)" : `token: ${plane.token}${plane.tokenSource === "generated" ? `  (new; saved to ${plane.tokenFile}, mode 0600)` : `  (from ${plane.tokenFile})`}`;
  process.stdout.write(`workcell control plane listening on ${plane.url}\n${tokenLine}\nimage: ${plane.image}\nruntime: ${plane.runtime.runtime} (${plane.runtime.source === "configured" ? "WORKCELL_RUNTIME" : "runsc when offered, else the engine's default"})\n`);
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
    const message = error instanceof AppError || error instanceof CliError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    // A server error may quote worker-controlled text (a path, a command).
    process.stderr.write(`workcell: ${escapeControls(message)}\n`);
    process.exitCode = error instanceof CliError ? error.exitCode : 1;
  },
);
