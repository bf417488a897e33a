import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnOn,
  startTestPlane,
  stopTestPlane,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createRepoFromFixture, createTempDir } from "./helpers/test-repo.js";

let test: TestPlane;
let scratch: string;
const spawned: string[] = [];

beforeAll(async () => {
  test = await startTestPlane();
  scratch = await createTempDir("workcell-workflow-");
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

async function workerOn(fixture: string): Promise<{ worker: ApiWorker; client: Client }> {
  const worker = await spawnOn(test, await createRepoFromFixture(scratch, fixture));
  spawned.push(worker.id);
  const { client } = await test.connect(worker.mcpUrl);
  return { worker, client };
}

interface TestRunResult {
  success: boolean;
  passed: number;
  failed: number;
  skipped: number;
  failures: { testName: string; message: string; stackTrace: string }[];
}

const structured = <T>(result: unknown) => (result as { structuredContent: T }).structuredContent;

const cases = [
  {
    fixture: "ts-stats",
    language: "typescript",
    bugPattern: "values\\.length - 1",
    bugFile: "src/stats.ts:7:",
    failingTest: "mean of three numbers",
    fix: {
      path: "src/stats.ts",
      command: "find_replace",
      find: "total / (values.length - 1)",
      content: "total / values.length",
    },
  },
  {
    fixture: "py-stats",
    language: "python",
    bugPattern: "middle \\+ 1",
    bugFile: "stats/median.py:10:",
    failingTest: "test_even_count",
    fix: {
      path: "stats/median.py",
      command: "find_replace",
      find: "ordered[middle] + ordered[middle + 1]",
      content: "ordered[middle - 1] + ordered[middle]",
    },
  },
] as const;

describe.each(cases)("the coding workflow on the $fixture fixture", (fixture) => {
  it("finds the bug, is held at the finish gate until validation, sees the test go from red to green, and finishes", async () => {
    const { worker, client } = await workerOn(fixture.fixture);
    const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });

    const info = structured<{ language: string; testCommand: string }>(await call("project_info"));
    expect(info.language).toBe(fixture.language);

    expect(textOf(await call("grep", { pattern: fixture.bugPattern }))).toContain(fixture.bugFile);

    const red = structured<TestRunResult>(await call("test_run"));
    expect(red.success).toBe(false);
    expect(red.failed).toBe(1);
    expect(red.passed).toBe(2);
    expect(red.failures[0]?.testName).toContain(fixture.failingTest);
    expect(red.failures[0]?.message.length).toBeGreaterThan(0);

    const early = await call("finish", { summary: "done?" });
    expect(early.isError).toBe(true);
    expect(textOf(early)).toMatch(/finish refused: nothing has passed code_validate yet/);

    const edited = await call("code_edit", fixture.fix);
    expect(edited.isError).toBeFalsy();
    expect(textOf(edited)).toMatch(/replacement/);

    const unvalidated = await call("finish", { summary: "fixed" });
    expect(unvalidated.isError).toBe(true);

    const validation = structured<{ success: boolean; errorCount: number; language: string }>(
      await call("code_validate"),
    );
    expect(validation).toMatchObject({ success: true, errorCount: 0, language: fixture.language });

    const green = structured<TestRunResult>(await call("test_run"));
    expect(green).toMatchObject({ success: true, passed: 3, failed: 0 });

    const finished = await call("finish", { summary: "Fixed the bug" });
    expect(finished.isError).toBeFalsy();
    expect(textOf(finished)).toBe("Task finished: Fixed the bug");

    const after = await test.api<ApiWorker & { task: { status: string; summary: string } }>(
      "GET",
      `/v1/workers/${worker.id}`,
    );
    expect(after.body.task).toMatchObject({ status: "finished", summary: "Fixed the bug" });
    expect(after.body.status).toBe("running");
    await client.close();
  });
});

describe("the finish gate", () => {
  it("counts edits made through shell: finish is refused and names the changed file", async () => {
    const { client } = await workerOn("py-stats");
    const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });
    expect(structured<{ success: boolean }>(await call("code_validate")).success).toBe(true);
    await call("shell", { command: "echo '# sneaky' >> stats/median.py" });
    const refused = await call("finish", { summary: "done" });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/changed since the last successful code_validate/);
    expect(structured<{ changedFiles: string[] }>(refused).changedFiles).toEqual(["M\tstats/median.py"]);
    // Undoing the edit restores exactly the validated content.
    await call("shell", { command: "sed -i '$ d' stats/median.py" });
    expect((await call("finish", { summary: "done" })).isError).toBeFalsy();
    await client.close();
  });

  it("ends the task as failed after five consecutive failed validations, across sessions, visible through the REST API", async () => {
    const { worker, client } = await workerOn("py-stats");
    await client.callTool({
      name: "write_file",
      arguments: { path: "stats/broken.py", content: "def oops(:\n    pass\n" },
    });
    for (let i = 0; i < 3; i += 1) {
      const result = structured<{ success: boolean; errors: { file: string; line: number; code: string }[] }>(
        await client.callTool({ name: "code_validate", arguments: {} }),
      );
      expect(result.success).toBe(false);
      expect(result.errors[0]).toMatchObject({ file: "stats/broken.py", line: 1, code: null });
    }
    await client.close();

    // A new session inherits the count from the control plane.
    const second = await test.connect(worker.mcpUrl);
    for (let i = 0; i < 2; i += 1) await second.client.callTool({ name: "code_validate", arguments: {} });
    const failed = await second.client.callTool({ name: "finish", arguments: { summary: "giving up" } });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(/^Error: Task failed: 5 consecutive validations failed/);

    const after = await test.api<ApiWorker & { task: { status: string; reason: string } }>(
      "GET",
      `/v1/workers/${worker.id}`,
    );
    expect(after.body.status).toBe("failed");
    expect(after.body.error).toMatch(/Task failed: 5 consecutive validations failed/);
    expect(after.body.task.status).toBe("failed");
    // The failed worker can still be inspected.
    expect((await test.api("GET", `/v1/workers/${worker.id}/diff`)).status).toBe(200);
    // A second finish says why there is nothing to finish, in words and in structuredContent.
    const again = await second.client.callTool({ name: "finish", arguments: { summary: "one more try" } });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/^Error: The task already ended at \S+; it failed: 5 consecutive validations failed/);
    expect(again.structuredContent).toMatchObject({
      refused: true,
      reason: "already_ended",
      task: { status: "failed", reason: expect.stringMatching(/^5 consecutive validations failed/) },
    });

    // The worker takes a second task: the gate starts fresh, and the old session ends so it cannot report the old outcome.
    const next = await test.api<ApiWorker & { task?: unknown; validation?: { consecutiveFailures: number } }>(
      "POST",
      `/v1/workers/${worker.id}/task`,
    );
    expect(next.status).toBe(200);
    expect(next.body.status).toBe("running");
    expect(next.body.task).toBeNull();
    expect(next.body.validation).toMatchObject({ validated: false, consecutiveFailures: 0 });
    await expect(second.client.callTool({ name: "project_info", arguments: {} })).rejects.toThrow();
    const third = await test.connect(worker.mcpUrl);
    const fresh = await third.client.callTool({ name: "finish", arguments: { summary: "second task" } });
    expect(fresh.structuredContent).toMatchObject({ refused: true, reason: "never_validated" });
    // While that task is open, it cannot be wiped by starting yet another.
    const open = await test.api<{ error: { code: string; details: { reason: string } } }>(
      "POST",
      `/v1/workers/${worker.id}/task`,
    );
    expect(open.status).toBe(409);
    expect(open.body.error.details.reason).toBe("task_open");
    await third.client.close();
  });
});
