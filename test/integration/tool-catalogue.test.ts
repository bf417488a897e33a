import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOL_NAME } from "../../tools/registry.js";
import { textOf } from "./helpers/control-plane.js";
import { startSingleWorker, stopSingleWorker, type SingleWorker } from "./helpers/single-worker.js";

// The tools one worker offers, each case building on the workspace the earlier ones left;
// tool-catalogue-toolchains.test.ts runs the build and test tools on real toolchains.
let single: SingleWorker | undefined;
let client: Client;

beforeAll(async () => {
  single = await startSingleWorker("workcell-catalogue-");
  ({ client } = single);
});

afterAll(async () => {
  await stopSingleWorker(single);
});

const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });
const structured = <T>(result: unknown) => (result as { structuredContent: T }).structuredContent;

describe("the catalogue", () => {
  it("has unique snake_case names, a description on every field and annotations on every tool", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    for (const tool of tools) {
      expect(tool.name).toMatch(TOOL_NAME);
      expect(tool.annotations, tool.name).toBeDefined();
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${tool.name}.${field}`).toBeTruthy();
      }
    }
    for (const name of [
      "read_multiple_files",
      "directory_tree",
      "move_file",
      "get_file_info",
      "create_directory",
      "code_edit",
      "start_process",
      "read_process_output",
      "write_process_input",
      "kill_process",
      "list_processes",
      "git_reset",
      "git_show",
      "git_branch",
      "git_create_branch",
      "git_checkout",
      "git_stash",
      "project_info",
      "build_run",
      "test_run",
      "code_validate",
      "code_navigate",
      "code_inspect",
      "code_refactor",
      "code_generate",
      "finish",
      "run_pipeline",
    ]) {
      expect(names).toContain(name);
    }
  });

  it("offers the coding_workflow prompt built from the detected project", async () => {
    const prompt = await client.getPrompt({ name: "coding_workflow", arguments: { task: "Fix the add function" } });
    const text = (prompt.messages[0]?.content as { text: string }).text;
    expect(text).toMatch(/plan/i);
    expect(text).toContain("code_validate");
    expect(text).toContain("Fix the add function");
  });
});

describe("file tools", () => {
  it("reads several files, heads and tails, and reports failures in place", async () => {
    const text = textOf(await call("read_multiple_files", { paths: ["README.md", "missing.txt", "src/greet.ts"] }));
    expect(text).toContain("README.md:\n# demo");
    expect(text).toMatch(/missing\.txt: Error - No such file/);
    expect(text).toContain("export const greeting");
    expect(textOf(await call("read_file", { path: "src/math.ts", head: 1 }))).toBe(
      "export function add(a: number, b: number): number {\n",
    );
    expect(textOf(await call("read_file", { path: "src/math.ts", tail: 1 }))).toBe("}\n");
  });

  it("creates directories, moves files, describes them and draws the tree", async () => {
    await call("create_directory", { path: "docs/guides" });
    await call("write_file", { path: "docs/draft.md", content: "draft" });
    expect(
      (await call("move_file", { source: "docs/draft.md", destination: "docs/guides/final.md" })).isError,
    ).toBeFalsy();
    expect((await call("move_file", { source: "README.md", destination: "docs/guides/final.md" })).isError).toBe(true);
    const info = structured<{ type: string; size: number; permissions: string }>(
      await call("get_file_info", { path: "docs/guides/final.md" }),
    );
    expect(info).toMatchObject({ type: "file", size: 5 });
    expect(info.permissions).toMatch(/^0[0-7]{3}$/);
    const tree = JSON.parse(textOf(await call("directory_tree", { path: "docs" })));
    expect(tree).toEqual([{ name: "guides", type: "directory", children: [{ name: "final.md", type: "file" }] }]);
    const withoutSrc = JSON.parse(textOf(await call("directory_tree", { excludePatterns: ["src", "docs"] }))) as {
      name: string;
    }[];
    expect(withoutSrc.map((entry) => entry.name)).toEqual([".gitignore", "README.md"]);
    expect(textOf(await call("list_directory", { path: "src", sizes: true, sortBy: "size" }))).toMatch(
      /^\[FILE\] math\.ts \(\d+ B\)\n\[FILE\] greet\.ts/,
    );
  });

  it("edits with replaceAll and answers the changed region for code_edit", async () => {
    await call("write_file", { path: "notes.txt", content: "a x\nb x\nc x\n" });
    await call("edit_file", { path: "notes.txt", edits: [{ oldText: "x", newText: "y", replaceAll: true }] });
    expect(textOf(await call("read_file", { path: "notes.txt" }))).toBe("a y\nb y\nc y\n");
    const edited = await call("code_edit", {
      path: "notes.txt",
      command: "replace_lines",
      startLine: 2,
      endLine: 2,
      content: "B!",
    });
    expect(textOf(edited)).toBe("Edited notes.txt (1 replacement), lines 2-2:\n1  a y\n2> B!\n3  c y\n4  ");
  });
});

describe("search tools", () => {
  it("honour .gitignore by default and can include ignored files", async () => {
    await call("write_file", { path: "ignored/secret.log", content: "needle\n" });
    expect(textOf(await call("glob", { pattern: "**/*.log" }))).toMatch(/^No files match/);
    expect(textOf(await call("glob", { pattern: "**/*.log", includeIgnored: true }))).toBe("ignored/secret.log");
    expect(textOf(await call("grep", { pattern: "needle" }))).toMatch(/^No matches/);
    expect(textOf(await call("grep", { pattern: "needle", includeIgnored: true }))).toBe("ignored/secret.log:1:needle");
  });

  it("caps glob at 200 results with a note", async () => {
    await call("shell", { command: "mkdir -p many && for i in $(seq 1 250); do : > many/f$i.txt; done" });
    const result = await call("glob", { pattern: "many/*.txt" });
    expect(textOf(result)).toMatch(/\[showing the first 200 of 250 files; narrow the pattern or the path\]$/);
    expect((result.structuredContent as { files: string[] }).files).toHaveLength(200);
  });
});

describe("background processes", () => {
  it("start, read by cursor, write to stdin, list and kill", async () => {
    const started = structured<{ processId: string; running: boolean; cursor: number }>(
      await call("start_process", { command: 'echo ready; while read line; do echo "got $line"; done', waitMs: 300 }),
    );
    expect(started.running).toBe(true);
    expect(textOf(await call("read_process_output", { processId: started.processId }))).toContain("ready");
    await call("write_process_input", { processId: started.processId, input: "hello\n" });
    await expect
      .poll(
        async () =>
          structured<{ output: string }>(
            await call("read_process_output", { processId: started.processId, cursor: started.cursor }),
          ).output,
      )
      .toBe("got hello\n");
    expect(textOf(await call("list_processes"))).toMatch(new RegExp(`${started.processId} pid=\\d+ running`));
    await call("kill_process", { processId: started.processId });
    await expect
      .poll(
        async () =>
          structured<{ running: boolean }>(await call("read_process_output", { processId: started.processId })).running,
      )
      .toBe(false);
  });
});

describe("git tools", () => {
  it("branches, switches, stashes, shows and unstages", async () => {
    expect((await call("git_create_branch", { branchName: "feature/x" })).isError).toBeFalsy();
    expect(textOf(await call("git_branch", {}))).toContain("feature/x");
    expect(textOf(await call("git_checkout", { branchName: "feature/x" }))).toBe("Switched to branch feature/x");
    await call("write_file", { path: "wip.txt", content: "wip" });
    await call("git_stash", { action: "push", message: "park it" });
    expect(textOf(await call("git_stash", { action: "list" }))).toContain("park it");
    expect(textOf(await call("git_status"))).not.toContain("wip.txt");
    await call("git_stash", { action: "pop" });
    await call("git_add", { files: ["wip.txt"] });
    expect(textOf(await call("git_diff", { staged: true, contextLines: 0 }))).toContain("+wip");
    await call("git_reset", { files: ["wip.txt"] });
    expect(textOf(await call("git_diff", { staged: true }))).toBe("(no changes)");
    expect(textOf(await call("git_show", { revision: "HEAD" }))).toMatch(/initial/);
    expect(textOf(await call("git_log", { since: "2000-01-01", maxCount: 5 }))).toContain("initial");
    expect(textOf(await call("git_log", { until: "2000-01-01" }))).toBe("(no commits)");
  });

  it("refuses refs that would become options", async () => {
    for (const [name, args] of [
      ["git_show", { revision: "--output=/tmp/x" }],
      ["git_diff", { target: "-p" }],
      ["git_checkout", { branchName: "-f" }],
      ["git_create_branch", { branchName: "--delete" }],
      ["git_branch", { contains: "--help" }],
    ] as const) {
      const result = await call(name, args);
      expect(result.isError, name).toBe(true);
      expect(textOf(result)).toMatch(/not an option|not a valid branch name/);
    }
  });
});
