#!/usr/bin/env node
// The `workcell` command. `serve` and `build-image` run the control plane's program
// (server/cli.ts) through tsx; every other command is the client CLI (cli/), run from
// dist/cli.js, built by `npm install` (and by every `npm test`), so it starts without
// compiling anything, or from its TypeScript sources through tsx when that build is missing.
import { existsSync } from "node:fs";

const command = process.argv[2];
const plane = command === "serve" || command === "build-image";
const prebuilt = new URL("../dist/cli.js", import.meta.url);
if (!plane && existsSync(prebuilt)) {
  await import(prebuilt.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(plane ? "../server/cli.ts" : "../cli/client-entry.ts");
}
