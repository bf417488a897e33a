import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf } from "./helpers/control-plane.js";
import { startSingleWorker, stopSingleWorker, type SingleWorker } from "./helpers/single-worker.js";

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
