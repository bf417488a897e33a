import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createToolServer } from "../../../../tools/server.js";
import type { ToolRegistry } from "../../../../tools/registry.js";

const FIXTURE = path.resolve("test", "fixtures", "projects", "ts-shapes");

const context = { signal: new AbortController().signal, sendNotification: async () => undefined };

/** A place a code tool answers with. */
export interface Location {
  path: string;
  line: number;
  column: number;
  text: string;
  isDefinition?: boolean;
  kind?: string;
  name?: string;
}

/** A tool's answer: its text, its structured content and whether it is an error. */
export interface ToolAnswer {
  text: string;
  data: Record<string, unknown>;
  isError: boolean;
}

/**
 * Copies the ts-shapes fixture project to a temporary directory before the file's tests and removes it after them;
 * the tests of one file share the copy and its tool server, so each sees what the ones before it changed.
 */
export function useFixtureProject() {
  let root = "";
  let registry: ToolRegistry | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "workcell-code-tools-"));
    await cp(FIXTURE, root, { recursive: true });
    ({ registry } = createToolServer({ root }));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  return {
    /** The copy's directory (set once the file's tests begin). */
    get root(): string {
      return root;
    },

    /** Calls a tool on the copy and flattens its answer. */
    async call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
      const result: CallToolResult = await registry!.call(name, args, context);
      const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      return {
        text,
        data: (result.structuredContent ?? {}) as Record<string, unknown>,
        isError: result.isError === true,
      };
    },

    /** The type errors the TypeScript compiler reports for one file of the copied project. */
    async diagnosticsOf(relative: string): Promise<string[]> {
      const ts = (await import("typescript")).default;
      const config = ts.getParsedCommandLineOfConfigFile(
        path.join(root, "tsconfig.json"),
        {},
        { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
      )!;
      const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
      return ts
        .getPreEmitDiagnostics(program, program.getSourceFile(path.join(root, relative)))
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    },
  };
}
