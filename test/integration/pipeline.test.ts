import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../server/control-plane.js";
import {
  removeContainersOf,
  startTestPlane,
  stopTestPlane,
  TEST_TOKEN,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createRepoFromFixture, createTempDir, git } from "./helpers/test-repo.js";

let test: TestPlane;
let scratch: string;
let client: Client;
const spawned: string[] = [];

async function connectOrchestrator(plane: TestPlane): Promise<Client> {
  const orchestrator = new Client({ name: "orchestrator-test", version: "1.0.0" });
  await orchestrator.connect(
    new StreamableHTTPClientTransport(new URL(`${plane.plane.url}/v1/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } },
    }),
  );
  return orchestrator;
}

beforeAll(async () => {
  test = await startTestPlane();
  scratch = await createTempDir("workcell-pipeline-");
  client = await connectOrchestrator(test);
});

afterAll(async () => {
  await client?.close();
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

async function repoWithAgent(): Promise<string> {
  const repo = await createRepoFromFixture(scratch, "js-greeter");
  await mkdir(path.join(repo, ".agent"), { recursive: true });
  await copyFile(
    path.join(PROJECT_ROOT, "examples", "agents", "scripted-agent.mjs"),
    path.join(repo, ".agent", "scripted-agent.mjs"),
  );
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "add the scripted agent");
  return repo;
}

async function call<T = Record<string, unknown>>(
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; body: T }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text: string }[])[0]?.text ?? "{}";
  return {
    isError: result.isError === true,
    body: (result.structuredContent ?? (text.startsWith("{") ? JSON.parse(text) : { text })) as T,
  };
}

async function spawnAgentWorker(name: string): Promise<{ id: string; repo: string }> {
  const repo = await repoWithAgent();
  const spawned_ = await call<{ id: string; status: string }>("spawn_worker", {
    name,
    repo,
    template: "library",
    model: "scripted-1",
    agent: { command: ["node", "/workspace/.agent/scripted-agent.mjs"] },
  });
  expect(spawned_.isError).toBe(false);
  spawned.push(spawned_.body.id);
  return { id: spawned_.body.id, repo };
}

async function waitIdle(worker: string): Promise<{ busy: boolean; last_message: string }> {
  let status = { busy: true, last_message: "" };
  await expect
    .poll(
      async () => {
        status = (await call<{ busy: boolean; last_message: string }>("check_worker_status", { worker })).body;
        return status.busy;
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe(false);
  return status;
}

const PROMPTS = {
  feature:
    'Write the feature.\nFILE features/greet.feature\nFeature: Greeting\n  Scenario: greet someone\n    Given a name "Ada"\n    When I greet them\n    Then I hear "Hello, Ada!"\nEND',
  steps:
    "FILE features/steps/greet.steps.js\n// Step definitions for features/greet.feature\nmodule.exports = { given: (name) => name };\nEND",
  unitTests:
    'FILE test/greet.test.js\nconst test = require("node:test");\nconst assert = require("node:assert/strict");\ntest("greets by name", () => {\n  const { greet } = require("../src/greet.js");\n  assert.equal(greet("Ada"), "Hello, Ada!");\n});\nEND',
  buggyImplementation: "FILE src/greet.js\nexports.greet = (name) => `Hi ${name}`;\nEND",
  implementation: "FILE src/greet.js\nexports.greet = (name) => `Hello, ${name}!`;\nEND",
  refactor: 'FILE src/greet.js\nconst greeting = "Hello";\nexports.greet = (name) => `${greeting}, ${name}!`;\nEND',
  validation: "Check that everything is in place. Nothing to change.",
};

/** Drives one step that dispatches to the agent, then waits for it. */
async function instruct(tool: string, taskId: string, prompt: string, worker: string) {
  const answer = await call(tool, { task_id: taskId, prompt });
  expect(answer.isError, JSON.stringify(answer.body)).toBe(false);
  await waitIdle(worker);
}

describe.each(["greenfield", "bugfix", "change"] as const)("the BDD pipeline, %s", (type) => {
  it("runs the whole sequence with real commits and checks, and the commits reach the exported branch", async () => {
    const worker = await spawnAgentWorker(`pipe-${type}`);
    const accepted = await call<{ task_id: string; next: string; hint: string }>("accept_goal", {
      goal: "Greet people by name",
      type,
      worker: worker.id,
    });
    expect(accepted.body.next).toBe("instruct_feature_file");
    expect(accepted.body.hint).toMatch(
      type === "bugfix" ? /reproduces the bug/ : type === "change" ? /existing behaviour/ : /new behaviour/,
    );
    const task = accepted.body.task_id;

    await instruct("instruct_feature_file", task, PROMPTS.feature, worker.id);
    expect((await waitIdle(worker.id)).last_message).toMatch(/wrote features\/greet.feature/);
    expect((await call<{ commit_sha: string }>("commit", { task_id: task })).body.commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const gherkin = await call<{ passed: boolean }>("run_quality_checks", { task_id: task });
    expect(gherkin.body.passed).toBe(true);

    await instruct("instruct_step_defs", task, PROMPTS.steps, worker.id);
    await call("commit", { task_id: task });
    await call("run_quality_checks", { task_id: task });

    await instruct("instruct_unit_tests", task, PROMPTS.unitTests, worker.id);
    await call("commit", { task_id: task });
    const red = await call<{ checks: { name: string; detail: string }[] }>("run_quality_checks", { task_id: task });
    expect(red.body.checks[0]?.detail).toMatch(/as expected: 1 passed, 1 failed/);

    await instruct("instruct_implementation", task, PROMPTS.implementation, worker.id);
    await call("commit", { task_id: task });
    const green = await call<{ passed: boolean; blocking: boolean }>("run_quality_checks", { task_id: task });
    expect(green.body).toMatchObject({ passed: true, blocking: false });

    await instruct("instruct_refactor", task, PROMPTS.refactor, worker.id);
    await call("commit", { task_id: task });
    expect((await call<{ passed: boolean }>("run_quality_checks", { task_id: task })).body.passed).toBe(true);

    await instruct("run_validation", task, PROMPTS.validation, worker.id);
    expect((await call<{ committed: boolean }>("commit", { task_id: task })).body.committed).toBe(false);
    const done = await call<{ status: string; total_transitions: number; total_commits: number; duration: number }>(
      "mark_complete",
      { task_id: task, summary: "Greets by name" },
    );
    expect(done.body).toMatchObject({ status: "complete", total_transitions: 19, total_commits: 5 });
    expect(done.body.duration).toBeGreaterThan(0);

    const exported = await test.api<{ branch: string }>("POST", `/v1/workers/${worker.id}/export`);
    expect(git(worker.repo, "log", "--format=%s", exported.body.branch).split("\n").slice(0, 5)).toEqual([
      "post_refactor: Greet people by name",
      "post_implementation: Greet people by name",
      "post_unit_tests: Greet people by name",
      "post_step_defs: Greet people by name",
      "post_feature_file: Greet people by name",
    ]);
    const rest = await test.api<{ status: string; transitions: { to_stage: string; commit_sha?: string }[] }>(
      "GET",
      `/v1/tasks/${task}`,
    );
    expect(rest.body.status).toBe("complete");
    expect(rest.body.transitions.filter((t) => t.commit_sha).length).toBe(5);
  }, 240_000);
});

describe("pipeline enforcement", () => {
  it("refuses every skip with the sequence_violation answer", async () => {
    const worker = await spawnAgentWorker("pipe-skips");
    const task = (
      await call<{ task_id: string }>("accept_goal", { goal: "Skip ahead", type: "change", worker: worker.id })
    ).body.task_id;
    for (const tool of [
      "commit",
      "run_quality_checks",
      "instruct_step_defs",
      "instruct_implementation",
      "run_validation",
      "mark_complete",
    ]) {
      const refused = await call<Record<string, unknown>>(tool, { task_id: task, prompt: "x", summary: "x" });
      expect(refused.isError).toBe(true);
      expect(Object.keys(refused.body).sort()).toEqual([
        "allowed_next",
        "attempted_stage",
        "current_stage",
        "error",
        "message",
        "task_id",
        "transition_history",
      ]);
      expect(refused.body).toMatchObject({
        error: "sequence_violation",
        task_id: task,
        current_stage: "accept_goal",
        attempted_stage: tool,
        allowed_next: ["instruct_feature_file"],
      });
      expect(refused.body.message).toMatch(/Call instruct_feature_file next/);
    }
  });

  it("a failing suite after implementation blocks progress until it is fixed through the back-transition", async () => {
    const worker = await spawnAgentWorker("pipe-block");
    const task = (
      await call<{ task_id: string }>("accept_goal", { goal: "Greet", type: "greenfield", worker: worker.id })
    ).body.task_id;
    for (const [tool, prompt] of [
      ["instruct_feature_file", PROMPTS.feature],
      ["instruct_step_defs", PROMPTS.steps],
      ["instruct_unit_tests", PROMPTS.unitTests],
    ] as const) {
      await instruct(tool, task, prompt, worker.id);
      await call("commit", { task_id: task });
      await call("run_quality_checks", { task_id: task });
    }
    await instruct("instruct_implementation", task, PROMPTS.buggyImplementation, worker.id);
    await call("commit", { task_id: task });
    const failed = await call<{ passed: boolean; blocking: boolean; allowed_next: string[] }>("run_quality_checks", {
      task_id: task,
    });
    expect(failed.body).toMatchObject({ passed: false, blocking: true, allowed_next: ["instruct_implementation"] });
    const refused = await call<{ error: string; allowed_next: string[]; message: string }>("instruct_refactor", {
      task_id: task,
      prompt: "x",
    });
    expect(refused.body).toMatchObject({ error: "sequence_violation", allowed_next: ["instruct_implementation"] });
    expect(refused.body.message).toMatch(/block progress/);

    await instruct("instruct_implementation", task, PROMPTS.implementation, worker.id);
    await call("commit", { task_id: task });
    expect(
      (await call<{ passed: boolean; allowed_next: string[] }>("run_quality_checks", { task_id: task })).body,
    ).toMatchObject({ passed: true, allowed_next: ["instruct_refactor", "instruct_implementation"] });
  }, 240_000);

  it("going back from run_validation to instruct_unit_tests resumes the full sequence from there", async () => {
    const worker = await spawnAgentWorker("pipe-resume");
    const task = (
      await call<{ task_id: string }>("accept_goal", { goal: "Greet again", type: "change", worker: worker.id })
    ).body.task_id;
    const phases: [string, string][] = [
      ["instruct_feature_file", PROMPTS.feature],
      ["instruct_step_defs", PROMPTS.steps],
      ["instruct_unit_tests", PROMPTS.unitTests],
      ["instruct_implementation", PROMPTS.implementation],
      ["instruct_refactor", PROMPTS.refactor],
    ];
    for (const [tool, prompt] of phases) {
      await instruct(tool, task, prompt, worker.id);
      await call("commit", { task_id: task });
      await call("run_quality_checks", { task_id: task });
    }
    await instruct("run_validation", task, PROMPTS.validation, worker.id);
    const back = await call<{ stage: string; allowed_next: string[] }>("instruct_unit_tests", {
      task_id: task,
      prompt: 'FILE test/extra.test.js\nconst test = require("node:test");\ntest("extra", () => {});\nEND',
    });
    expect(back.body).toMatchObject({ stage: "instruct_unit_tests", allowed_next: ["commit"] });
    await waitIdle(worker.id);
    for (const [tool, prompt] of phases.slice(3)) {
      await call("commit", { task_id: task });
      await call("run_quality_checks", { task_id: task });
      await instruct(tool, task, prompt, worker.id);
    }
    await call("commit", { task_id: task });
    await call("run_quality_checks", { task_id: task });
    await instruct("run_validation", task, PROMPTS.validation, worker.id);
    const done = await call<{ status: string; total_transitions: number }>("mark_complete", {
      task_id: task,
      summary: "done twice",
    });
    expect(done.body).toMatchObject({ status: "complete", total_transitions: 28 });
  }, 240_000);

  it("two concurrent calls advance a task once, and a restart keeps the state", async () => {
    const worker = await spawnAgentWorker("pipe-back");
    const task = (await call<{ task_id: string }>("accept_goal", { goal: "Greet", type: "change", worker: worker.id }))
      .body.task_id;
    const both = await Promise.all([
      call("instruct_feature_file", { task_id: task, prompt: PROMPTS.feature }),
      call("instruct_feature_file", { task_id: task, prompt: PROMPTS.feature }),
    ]);
    expect(both.filter((answer) => !answer.isError)).toHaveLength(1);
    expect(both.filter((answer) => (answer.body as { error?: string }).error === "sequence_violation")).toHaveLength(1);
    await waitIdle(worker.id);
    await call("commit", { task_id: task });
    await call("run_quality_checks", { task_id: task });

    await client.close();
    await test.plane.close();
    test = await startTestPlane(test.dataDir);
    client = await connectOrchestrator(test);
    const after = await test.api<{ transitions: { to_stage: string }[] }>("GET", `/v1/tasks/${task}`);
    expect(after.body.transitions.at(-1)?.to_stage).toBe("run_quality_checks (post_feature_file)");
    const next = await call<{ error?: string; allowed_next?: string[] }>("commit", { task_id: task });
    expect(next.body).toMatchObject({ error: "sequence_violation", allowed_next: ["instruct_step_defs"] });
  }, 240_000);
});

describe("worker lifecycle and inspection on /v1/mcp", () => {
  it("spawns from a template, lists, inspects inside the worker, sets the model, heals a crash, stops and removes", async () => {
    const worker = await spawnAgentWorker("pipe-tools");
    const listed = await call<{ workers: { id: string; name: string; busy: boolean }[] }>("list_workers", {});
    expect(listed.body.workers.find((w) => w.id === worker.id)).toMatchObject({ name: "pipe-tools", busy: false });
    const details = await test.api<{ resources: { memoryMb: number } }>("GET", `/v1/workers/${worker.id}`);
    expect(details.body.resources.memoryMb).toBe(2048);

    expect(
      (await client.callTool({ name: "read_worker_file", arguments: { worker: "pipe-tools", path: "package.json" } }))
        .content,
    ).toEqual([{ type: "text", text: expect.stringContaining('"name": "js-greeter"') }]);
    const traversal = await client.callTool({
      name: "read_worker_file",
      arguments: { worker: worker.id, path: "../../etc/passwd" },
    });
    expect(traversal.isError).toBe(true);
    expect((traversal.content as { text: string }[])[0]?.text).toMatch(/refused/);
    expect(
      (await client.callTool({ name: "glob_worker", arguments: { worker: worker.id, pattern: "**/*.test.js" } }))
        .content,
    ).toEqual([{ type: "text", text: "test/smoke.test.js" }]);
    expect(
      (
        (await client.callTool({ name: "grep_worker", arguments: { worker: worker.id, pattern: "loads" } }))
          .content as { text: string }[]
      )[0]?.text,
    ).toMatch(/^test\/smoke\.test\.js:4:/);

    await call("set_worker_model", { worker: worker.id, model: "scripted-2" });
    const task = (
      await call<{ task_id: string }>("accept_goal", { goal: "Model check", type: "change", worker: worker.id })
    ).body.task_id;
    await call("instruct_feature_file", { task_id: task, prompt: "nothing to write" });
    expect((await waitIdle(worker.id)).last_message).toMatch(/model=scripted-2 stage=instruct_feature_file/);
    expect(
      (await call<{ active_task: { task_id: string; stage: string } }>("check_worker_status", { worker: worker.id }))
        .body.active_task,
    ).toMatchObject({ task_id: task, stage: "instruct_feature_file" });

    const { default: Docker } = await import("dockerode");
    const info = await test.api<{ containerId: string }>("GET", `/v1/workers/${worker.id}`);
    await new Docker().getContainer(info.body.containerId).kill();
    const sick = await call<{ healthy: boolean; crashed: { id: string }[] }>("health_check", {});
    expect(sick.body.healthy).toBe(false);
    expect(sick.body.crashed.map((w) => w.id)).toContain(worker.id);
    expect((await call<{ fixed: string[] }>("health_check", { fix: true })).body.fixed).toContain(worker.id);
    expect((await call<{ status: string }>("check_worker_status", { worker: worker.id })).body.status).toBe("running");

    expect((await call<{ status: string }>("stop_worker", { worker: worker.id })).body.status).toBe("stopped");
    expect((await call<{ status: string }>("remove_worker", { worker: worker.id })).body.status).toBe("removed");
    expect((await call("check_worker_status", { worker: worker.id })).isError).toBe(true);
  }, 120_000);
});
