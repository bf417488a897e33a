import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Plugin } from "esbuild";

/** Where the bundled in-container program is written, relative to the project root. */
export const TOOLS_BUNDLE_NAME = "workcell-tools.cjs";

/** Where the bundle is in the sandbox image (its modules resolve packages from there). */
const TOOLS_IN_IMAGE = `/opt/workcell/${TOOLS_BUNDLE_NAME}`;

/**
 * Bundles `tools/main.ts` and its dependencies into one CommonJS file for the sandbox image's
 * Node (Debian bookworm ships Node 18): CommonJS because the image builds a startup snapshot
 * from it, and Node builds those only from a script. Returns the bundle's absolute path.
 */
export async function bundleTools(
  projectRoot: string,
  outDir = path.join(projectRoot, "dist", "sandbox"),
): Promise<string> {
  const { build } = await import("esbuild");
  await mkdir(outDir, { recursive: true });
  const outfile = path.join(outDir, TOOLS_BUNDLE_NAME);
  await build({
    entryPoints: [path.join(projectRoot, "tools", "main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node18",
    format: "cjs",
    legalComments: "none",
    logLevel: "warning",
    // Modules that load a package at run time (typescript, pyright) resolve it from the bundle's place in the image.
    define: { "import.meta.url": JSON.stringify(`file://${TOOLS_IN_IMAGE}`) },
    plugins: [deferBuiltins(SNAPSHOT_UNSUPPORTED)],
  });
  return outfile;
}

/**
 * Built-in modules Node 18 cannot keep in a startup snapshot: loading one while the snapshot
 * is built leaves a reference the snapshot cannot resolve, and Node aborts.
 */
const SNAPSHOT_UNSUPPORTED = ["child_process", "module", "net", "async_hooks"];

/**
 * Makes imports of `modules` load the module on the first call of one of its functions
 * rather than when the bundle is evaluated, so the snapshot never holds it. Each function the
 * host's module exports becomes a stand-in that calls (or, with `new`, constructs) the real
 * one; a value export that is not a function is left out, so importing one fails the build.
 */
function deferBuiltins(modules: readonly string[]): Plugin {
  const names = new Set(modules.flatMap((name) => [name, `node:${name}`]));
  return {
    name: "defer-builtins",
    setup(build) {
      build.onResolve({ filter: /^(node:)?[a-z_]+$/ }, (args) => {
        if (!names.has(args.path)) return undefined;
        // The stand-in's own require is of the real module.
        if (args.namespace === "deferred-builtin") return { path: args.path, external: true };
        return { path: args.path.replace(/^node:/, ""), namespace: "deferred-builtin" };
      });
      build.onLoad({ filter: /.*/, namespace: "deferred-builtin" }, async (args) => {
        const real = (await import(/* @vite-ignore */ `node:${args.path}`)) as Record<string, unknown>;
        const functions = Object.keys(real).filter(
          (key) => key !== "default" && /^[A-Za-z_$][\w$]*$/.test(key) && typeof real[key] === "function",
        );
        // In a process started from the snapshot, require is the snapshot builder's, which
        // warns that these modules cannot be in a snapshot: they are not, so it stays quiet.
        const contents = [
          "let loaded;",
          "const load = () => {",
          "  if (loaded !== undefined) return loaded;",
          "  const warn = process.emitWarning;",
          "  process.emitWarning = () => undefined;",
          `  try { loaded = require(${JSON.stringify(`node:${args.path}`)}); } finally { process.emitWarning = warn; }`,
          "  return loaded;",
          "};",
          ...functions.map(
            (key) =>
              `export function ${key}(...args) { return new.target ? new (load().${key})(...args) : load().${key}(...args); }`,
          ),
        ].join("\n");
        return { contents, loader: "js" };
      });
    },
  };
}
