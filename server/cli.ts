#!/usr/bin/env node
import { loadConfig } from "../runtime/config/config.js";
import { DockerDriver } from "../runtime/docker/docker-driver.js";
import { AppError } from "../runtime/errors/app-error.js";
import { ensureSandboxImage } from "../runtime/image/sandbox-image.js";
import { PLANE_COMMANDS, reportFailure, runClientMain } from "./cli/client-main.js";
import { PROJECT_ROOT, startControlPlane } from "./control-plane.js";

const progress = (line: string) => process.stderr.write(`  ${line}\n`);

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command === undefined || !PLANE_COMMANDS.has(command)) return runClientMain(argv);
  if (command === "build-image") {
    const tag = await ensureSandboxImage(new DockerDriver(), PROJECT_ROOT, progress);
    process.stdout.write(`${tag}\n`);
    return 0;
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
    process.exitCode = reportFailure(error, (candidate) => candidate instanceof AppError);
  },
);
