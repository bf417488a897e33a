#!/usr/bin/env node
// The `workcell` command: runs the TypeScript CLI through tsx (no build step).
import { register } from "tsx/esm/api";

register();
await import("../server/cli.ts");
