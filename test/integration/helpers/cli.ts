import { spawn } from "node:child_process";
import path from "node:path";
import { PROJECT_ROOT } from "../../../server/control-plane.js";
import { TEST_TOKEN, type TestPlane } from "./control-plane.js";

/** Runs `workcell …` as a user would, against the test's control plane. */
export function runCli(test: TestPlane, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliIn(process.cwd(), test, ...args);
}

/** Runs `workcell …` from the directory `cwd`, against the test's control plane. */
export function runCliIn(cwd: string, test: TestPlane, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, "bin", "workcell.mjs"), ...args], {
      cwd,
      env: { ...process.env, WORKCELL_URL: test.plane.url, WORKCELL_TOKEN: TEST_TOKEN },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
