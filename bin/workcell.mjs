#!/usr/bin/env node
// The `workcell` command. Client commands run from dist/cli.js, built by `npm install` (and
// by every `npm test`), so they start without compiling anything; `serve` and `build-image`,
// and any command when that build is missing, run the TypeScript sources through tsx.
import { existsSync } from "node:fs";

const command = process.argv[2];
const prebuilt = new URL("../dist/cli.js", import.meta.url);
if (command !== "serve" && command !== "build-image" && existsSync(prebuilt)) {
  await import(prebuilt.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../server/cli.ts");
}
