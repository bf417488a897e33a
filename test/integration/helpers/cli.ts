import { spawn } from "node:child_process";
import path from "node:path";
import { PROJECT_ROOT } from "../../../server/control-plane.js";
import { TEST_TOKEN, type TestPlane } from "./control-plane.js";

/** Runs `workcell …` as a user would, against the test's control plane. */
export function runCli(
  test: TestPlane,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliIn(process.cwd(), test, ...args);
}

/** Runs `workcell …` from the directory `cwd`, against the test's control plane. */
export function runCliIn(
  cwd: string,
  test: TestPlane,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliWith({ cwd }, test, ...args);
}

/** Runs `workcell …` with `input` piped to its standard input. */
export function runCliWithInput(
  input: string,
  test: TestPlane,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliWith({ cwd: process.cwd(), input }, test, ...args);
}

function runCliWith(
  options: { cwd: string; input?: string },
  test: TestPlane,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, "bin", "workcell.mjs"), ...args], {
      cwd: options.cwd,
      env: { ...process.env, WORKCELL_URL: test.plane.url, WORKCELL_TOKEN: TEST_TOKEN },
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
