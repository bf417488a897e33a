import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOL_NAME } from "../../tools/registry.js";
import {
  removeContainersOf,
  spawnWorker,
  startTestPlane,
  stopTestPlane,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir } from "./helpers/test-repo.js";

let test: TestPlane;
let worker: ApiWorker;
let client: Client;

beforeAll(async () => {
  test = await startTestPlane();
  ({ worker } = await spawnWorker(test, await createTempDir("workcell-catalogue-")));
  ({ client } = await test.connect(worker.mcpUrl));
});

afterAll(async () => {
  await client?.close();
  await stopTestPlane(test);
  await removeContainersOf([worker.id]);
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

describe("build_run, test_run and run_pipeline on real toolchains", () => {
  it("parses go build errors and go test -json results", async () => {
    await call("write_file", { path: "gomod/go.mod", content: "module example.com/calc\n\ngo 1.19\n" });
    await call("write_file", {
      path: "gomod/calc.go",
      content: "package calc\n\nfunc Double(x int) int { return x * 3 }\n",
    });
    await call("write_file", {
      path: "gomod/calc_test.go",
      content:
        'package calc\n\nimport "testing"\n\nfunc TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Errorf("Double(2) = %d", Double(2))\n\t}\n}\n',
    });
    const tests = structured<{ success: boolean; failed: number; failures: { testName: string; message: string }[] }>(
      await call("test_run", { cwd: "gomod" }),
    );
    expect(tests).toMatchObject({ success: false, failed: 1 });
    expect(tests.failures[0]).toMatchObject({ testName: "TestDouble", message: "calc_test.go:7: Double(2) = 6" });
    await call("write_file", {
      path: "gomod/broken.go",
      content: "package calc\n\nfunc Broken() int { return nope }\n",
    });
    const build = structured<{
      success: boolean;
      errorCount: number;
      errors: { file: string; line: number; column: number }[];
    }>(await call("build_run", { cwd: "gomod" }));
    expect(build).toMatchObject({ success: false, errorCount: 1 });
    expect(build.errors[0]).toMatchObject({ file: "./broken.go", line: 3, column: 28 });
  });

  it("tests a uv src-layout project with the image's python3, pointing at the failing line, and reports a broken module as an error", async () => {
    await call("write_file", {
      path: "uvproj/pyproject.toml",
      content: '[project]\nname = "calc"\nversion = "0.1.0"\n',
    });
    await call("write_file", { path: "uvproj/uv.lock", content: "version = 1\n" });
    await call("write_file", { path: "uvproj/src/calc/__init__.py", content: "def add(a, b):\n    return a - b\n" });
    await call("write_file", {
      path: "uvproj/tests/test_calc.py",
      content: "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    });
    const info = await client.callTool({ name: "project_info", arguments: {} });
    expect(info.isError).toBeFalsy();
    const tests = structured<{
      success: boolean;
      failed: number;
      command: string;
      failures: { file: string; line: number; message: string }[];
      errors: unknown[];
    }>(await call("test_run", { cwd: "uvproj" }));
    expect(tests.command).toMatch(/^PYTHONPATH=src python3 -m pytest /);
    expect(tests).toMatchObject({ success: false, failed: 1, errors: [] });
    expect(tests.failures[0]).toMatchObject({
      file: "tests/test_calc.py",
      line: 5,
      message: "assert -1 == 3\n +  where -1 = add(1, 2)",
    });
    await call("write_file", { path: "uvproj/tests/test_broken.py", content: "import missing_module\n" });
    const broken = structured<{
      success: boolean;
      failed: number;
      errors: { file: string; line: number; message: string }[];
    }>(await call("test_run", { cwd: "uvproj" }));
    expect(broken.success).toBe(false);
    expect(broken.errors).toEqual([
      expect.objectContaining({
        file: "tests/test_broken.py",
        line: 1,
        message: "ModuleNotFoundError: No module named 'missing_module'",
      }),
    ]);
  });

  it("parses cargo test output", async () => {
    await call("write_file", {
      path: "rust/Cargo.toml",
      content: '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
    });
    await call("write_file", {
      path: "rust/src/lib.rs",
      content:
        "pub fn double(x: i32) -> i32 { x * 3 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn doubles() { assert_eq!(super::double(2), 4); }\n    #[test]\n    fn zero() { assert_eq!(super::double(0), 0); }\n}\n",
    });
    const tests = structured<{ success: boolean; passed: number; failed: number; failures: { testName: string }[] }>(
      await call("test_run", { cwd: "rust", timeoutMs: 600_000 }),
    );
    expect(tests).toMatchObject({ success: false, passed: 1, failed: 1 });
    expect(tests.failures[0]?.testName).toBe("tests::doubles");
  }, 600_000);

  it("chains tools in one call, feeding one step's output to the next", async () => {
    const result = await call("run_pipeline", {
      steps: [
        { tool: "shell", args: { command: "printf pipeline-value" } },
        { tool: "write_file", args: { path: "piped.txt", content: "{{previous}}" } },
        { tool: "read_file", args: { path: "piped.txt" } },
      ],
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(await call("read_file", { path: "piped.txt" }))).toContain("pipeline-value");
    const failing = await call("run_pipeline", {
      steps: [
        { tool: "read_file", args: { path: "nope" } },
        { tool: "shell", args: { command: "touch ran.txt" } },
      ],
    });
    expect(failing.isError).toBe(true);
    expect((await call("get_file_info", { path: "ran.txt" })).isError).toBe(true);
  });
});
