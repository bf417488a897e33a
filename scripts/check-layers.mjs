#!/usr/bin/env node
// The lint rule that keeps the architecture's import direction: server → runtime only;
// runtime imports neither server/ nor tools/; tools/ (the in-container program) imports
// neither and never writes to the console (stdout is its MCP channel); client/ (the published
// HTTP client) imports from outside itself only types, from runtime/ and contract/, so its
// built file has no dependencies. contract/ (what the control plane, the sandbox and the CLI
// agree on: wire names, container paths and variables, the policy and its file, the network
// grant rule, the control channel's and run/diff shapes, typed errors, the shell connection's
// frames) is imported by every side and imports nothing of the project, and no package but
// zod (not even node:), so each side reads the one definition. cli/ (the `workcell` client
// commands) talks to the control plane only through client/, so it may import only client/
// and contract/; nothing imports cli/.
// runtime/ knows no HTTP routes (no "/v1/" in it): they are server/'s.
// runtime/testing/ holds the test doubles (in-memory driver and store, manual clock): no file
// outside runtime/testing/ and test/ may import it, so no fake can reach production code.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FORBIDDEN = {
  server: ["tools", "client", "cli"],
  runtime: ["server", "tools", "client", "cli"],
  tools: ["server", "runtime", "client", "cli"],
  client: ["server", "tools", "cli"],
  contract: ["server", "runtime", "tools", "client", "cli"],
  cli: ["server", "runtime", "tools"],
};
/** The only top-level folders a layer may import, for layers where that is the shorter list. */
const ONLY = { cli: ["cli", "client", "contract"] };
/** Where the test doubles live, and the only folders that may import them. */
const TEST_DOUBLES = path.join("runtime", "testing");
const TEST_DOUBLE_IMPORTERS = [TEST_DOUBLES, "test"];
/** Folders no rule looks into. */
const SKIPPED = new Set(["node_modules", "dist", "test-results"]);
/** An HTTP route of the public API: server/ knows them, runtime/ must not. */
const ROUTE = /\/v1\/[a-z]*/;
/** The packages contract/ may import. */
const CONTRACT_PACKAGES = new Set(["zod"]);
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

async function* sourceFiles(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) yield full;
  }
}

/** Every source file of the project, however deep, but those in hidden folders and folders no rule looks into. */
async function* allSourceFiles(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name) && !entry.name.startsWith(".")) yield* allSourceFiles(full);
    } else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) yield full;
  }
}

/** Whether `relative` (a path from the root) is `folder` or inside it. */
function isWithin(relative, folder) {
  return relative === folder || relative.startsWith(`${folder}${path.sep}`);
}

const problems = [];
for (const [layer, forbidden] of Object.entries(FORBIDDEN)) {
  for await (const file of sourceFiles(path.join(root, layer))) {
    const text = await readFile(file, "utf8");
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      if (
        layer === "contract" &&
        specifier !== undefined &&
        !specifier.startsWith(".") &&
        !CONTRACT_PACKAGES.has(specifier)
      ) {
        problems.push(
          `${path.relative(root, file)}: contract/ may import only ${[...CONTRACT_PACKAGES].join(", ")} ("${specifier}")`,
        );
      }
      if (!specifier?.startsWith(".")) continue;
      const target = path.relative(root, path.resolve(path.dirname(file), specifier)).split(path.sep)[0];
      const only = ONLY[layer];
      if (only !== undefined && !only.includes(target)) {
        problems.push(
          `${path.relative(root, file)}: ${layer}/ may import only ${only
            .filter((name) => name !== layer)
            .map((name) => `${name}/`)
            .join(" and ")}, not ${target}/ ("${specifier}")`,
        );
      } else if (forbidden.includes(target))
        problems.push(`${path.relative(root, file)}: ${layer}/ must not import ${target}/ ("${specifier}")`);
      // Its own modules are bundled with it; only what comes from outside client/ must be types.
      if (layer === "client" && target !== "client" && !/^\s*(?:import|export) type\s/.test(match[0]))
        problems.push(
          `${path.relative(root, file)}: client/ may import only types from outside itself ("${specifier}"); use "import type"`,
        );
    }
    if (layer === "runtime" && ROUTE.test(text)) {
      problems.push(
        `${path.relative(root, file)}: runtime/ must not name HTTP routes ("${text.match(ROUTE)?.[0]}"); an error names its fix in details.action and server/error-hints.ts says which route does it`,
      );
    }
    if (layer === "tools" && /\bconsole\.(log|info|warn|error|debug)\(/.test(text)) {
      problems.push(`${path.relative(root, file)}: tools/ must not use console (stdout is the MCP channel)`);
    }
  }
}

for await (const file of allSourceFiles(root)) {
  const from = path.relative(root, file);
  if (TEST_DOUBLE_IMPORTERS.some((folder) => isWithin(from, folder))) continue;
  for (const match of (await readFile(file, "utf8")).matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    if (!specifier?.startsWith(".")) continue;
    if (isWithin(path.relative(root, path.resolve(path.dirname(file), specifier)), TEST_DOUBLES)) {
      problems.push(
        `${from}: only test/ and runtime/testing/ itself may import runtime/testing/, the test doubles ("${specifier}"); production code takes the real implementation through its dependencies`,
      );
    }
  }
}

if (problems.length > 0) {
  process.stderr.write(`Layering check failed:\n${problems.map((p) => `  ${p}`).join("\n")}\n`);
  process.exit(1);
}
process.stdout.write(
  "Layering check passed: server → runtime only; tools/ stands alone; contract/ imports nothing of the project; client/ imports only types from outside itself; cli/ imports only client/ and contract/; runtime/ names no routes; runtime/testing/ is imported only by tests.\n",
);
