import { mkdir } from "node:fs/promises";
import path from "node:path";

/** Where the bundled in-container program is written, relative to the project root. */
export const TOOLS_BUNDLE_NAME = "workcell-tools.mjs";

/**
 * Bundles `tools/main.ts` and its dependencies into one ESM file for the sandbox image's
 * Node (Debian bookworm ships Node 18). Returns the bundle's absolute path.
 */
export async function bundleTools(projectRoot: string, outDir = path.join(projectRoot, "dist", "sandbox")): Promise<string> {
  const { build } = await import("esbuild");
  await mkdir(outDir, { recursive: true });
  const outfile = path.join(outDir, TOOLS_BUNDLE_NAME);
  await build({
    entryPoints: [path.join(projectRoot, "tools", "main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node18",
    format: "esm",
    legalComments: "none",
    logLevel: "warning",
    // Some dependencies are CommonJS and call require(); give the ESM bundle one.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  return outfile;
}
