import { describe, expect, it } from "vitest";
import { PROMPTS, useOrchestratorSuite } from "./helpers/orchestrator.js";
import { git } from "./helpers/test-repo.js";

// The whole BDD pipeline per goal type, and the orchestrator's worker tools; pipeline-enforcement.test.ts
// covers the refusals, the back-transitions, concurrency and a restart.
const suite = useOrchestratorSuite();
const { call, spawnAgentWorker, waitIdle, instruct } = suite;

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

    const exported = await suite.test.api<{ branch: string }>("POST", `/v1/workers/${worker.id}/export`);
    expect(git(worker.repo, "log", "--format=%s", exported.body.branch).split("\n").slice(0, 5)).toEqual([
      "post_refactor: Greet people by name",
      "post_implementation: Greet people by name",
      "post_unit_tests: Greet people by name",
      "post_step_defs: Greet people by name",
      "post_feature_file: Greet people by name",
    ]);
    const rest = await suite.test.api<{ status: string; transitions: { to_stage: string; commit_sha?: string }[] }>(
      "GET",
      `/v1/tasks/${task}`,
    );
    expect(rest.body.status).toBe("complete");
    expect(rest.body.transitions.filter((t) => t.commit_sha).length).toBe(5);
  }, 240_000);
});

describe("worker lifecycle and inspection on /v1/mcp", () => {
  it("spawns from a template, lists, inspects inside the worker, sets the model, heals a crash, stops and removes", async () => {
    const worker = await spawnAgentWorker("pipe-tools");
    const listed = await call<{ workers: { id: string; name: string; busy: boolean }[] }>("list_workers", {});
    expect(listed.body.workers.find((w) => w.id === worker.id)).toMatchObject({ name: "pipe-tools", busy: false });
    const details = await suite.test.api<{ resources: { memoryMb: number } }>("GET", `/v1/workers/${worker.id}`);
    expect(details.body.resources.memoryMb).toBe(2048);

    expect(
      (
        await suite.client.callTool({
          name: "read_worker_file",
          arguments: { worker: "pipe-tools", path: "package.json" },
        })
      ).content,
    ).toEqual([{ type: "text", text: expect.stringContaining('"name": "js-greeter"') }]);
    const traversal = await suite.client.callTool({
      name: "read_worker_file",
      arguments: { worker: worker.id, path: "../../etc/passwd" },
    });
    expect(traversal.isError).toBe(true);
    expect((traversal.content as { text: string }[])[0]?.text).toMatch(/refused/);
    expect(
      (await suite.client.callTool({ name: "glob_worker", arguments: { worker: worker.id, pattern: "**/*.test.js" } }))
        .content,
    ).toEqual([{ type: "text", text: "test/smoke.test.js" }]);
    expect(
      (
        (await suite.client.callTool({ name: "grep_worker", arguments: { worker: worker.id, pattern: "loads" } }))
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
    const info = await suite.test.api<{ containerId: string }>("GET", `/v1/workers/${worker.id}`);
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
