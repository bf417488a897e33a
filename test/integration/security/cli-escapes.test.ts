import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  type TestPlane,
} from "../helpers/control-plane.js";
import { runCli } from "../helpers/cli.js";
import { createTempDir, createTestRepo } from "../helpers/test-repo.js";

let test: TestPlane;
let repo: string;
const spawned: string[] = [];

beforeAll(async () => {
  test = await startTestPlane();
  repo = await createTestRepo(await createTempDir("workcell-cli-escapes-"));
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

const cli = (...args: string[]) => runCli(test, ...args);

const RAW_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("terminal escapes from a worker", () => {
  it("a diff whose content carries escape sequences prints them visibly, never raw, in human and JSON output", async () => {
    const worker = await spawnOn(test, repo);
    spawned.push(worker.id);
    // Clear the screen, set the window title, hide a line with a carriage return, and an 8-bit CSI.
    const written = await test.api<{ exitCode: number }>("POST", `/v1/workers/${worker.id}/exec`, {
      command: [
        "bash",
        "-c",
        "printf 'safe\\033[2J\\033]0;pwned\\007\\rfake\\302\\23331m\\342\\200\\256\\n' > evil.txt",
      ],
    });
    expect(written.body.exitCode).toBe(0);
    const human = await cli("diff", worker.id);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("+safe\\x1b[2J\\x1b]0;pwned\\x07\\rfake\\x9b31m\\u202e");
    expect(human.stdout).not.toMatch(RAW_CONTROLS);
    const json = await cli("diff", worker.id, "--json");
    expect(json.stdout).not.toMatch(RAW_CONTROLS);
    expect((JSON.parse(json.stdout) as { patch: string }).patch).toContain("safe\u001b[2J");
  });
});
