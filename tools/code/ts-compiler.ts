import { createRequire } from "node:module";
import type * as TS from "typescript";

/** The TypeScript compiler's module. */
export type TypeScript = typeof TS;

let loaded: TypeScript | null | undefined;

/**
 * The TypeScript compiler, loaded on first use: the one installed in the image (Debian's
 * node-typescript) or, on a development host, the package's own. Never the workspace's
 * copy: that is code the agent can change, and this process serves every tool.
 */
export function typescript(): TypeScript | null {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)("typescript") as TypeScript;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}
