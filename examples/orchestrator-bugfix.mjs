#!/usr/bin/env node
// An orchestrator that fixes a bug through workcell's BDD pipeline, using only the
// orchestrator's MCP endpoint (/v1/mcp):
//
//   node examples/orchestrator-bugfix.mjs
//
// It makes a small demo repository whose greet() says "Hi Ada" instead of "Hello, Ada!",
// spawns a worker on it whose agent is examples/agents/scripted-agent.mjs (a deterministic
// stand-in for a model: it performs the file edits each prompt spells out), and walks the
// pipeline — feature file, step definitions, a failing unit test, the fix, a refactor,
// validation — committing and checking each stage. The fix then comes back as a branch of
// the demo repository. Needs a running control plane (`npm start`); the URL and token come
// from WORKCELL_URL (else WORKCELL_HOST and WORKCELL_PORT, as the control plane binds) and
// WORKCELL_TOKEN, else http://127.0.0.1:7070 and .workcell/token.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { resolveControlPlaneUrl } from "workcell/client";

const url = resolveControlPlaneUrl();
const token =
  process.env.WORKCELL_TOKEN ??
  readFileSync(path.join(process.env.WORKCELL_DATA_DIR ?? ".workcell", "token"), "utf8").trim();
const here = path.dirname(fileURLToPath(import.meta.url));

// ---- the demo repository, with its bug ----
const repo = mkdtempSync(path.join(tmpdir(), "workcell-bugfix-demo-"));
const write = (file, content) => {
  mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  writeFileSync(path.join(repo, file), content);
};
write(
  "package.json",
  JSON.stringify(
    { name: "greeter", version: "1.0.0", private: true, scripts: { test: "node --test test/" } },
    null,
    2,
  ) + "\n",
);
write("src/greet.js", "exports.greet = (name) => `Hi ${name}`;\n");
write(
  "test/smoke.test.js",
  'const test = require("node:test");\nconst assert = require("node:assert/strict");\ntest("the module loads", () => assert.equal(typeof require("../src/greet.js").greet, "function"));\n',
);
mkdirSync(path.join(repo, ".agent"));
copyFileSync(path.join(here, "agents", "scripted-agent.mjs"), path.join(repo, ".agent", "scripted-agent.mjs"));
const git = (...args) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" }).trim();
git("init", "-q", "-b", "main");
git("add", ".");
git("-c", "user.name=demo", "-c", "user.email=demo@example.invalid", "commit", "-q", "-m", "greeter with a bug");
console.log(`demo repository: ${repo}`);

// ---- the prompts a model would get; the scripted agent acts on their FILE blocks ----
const PROMPTS = {
  instruct_feature_file:
    'Describe the expected greeting.\nFILE features/greet.feature\nFeature: Greeting\n  Scenario: greet someone by name\n    Given a name "Ada"\n    When I greet them\n    Then I hear "Hello, Ada!"\nEND',
  instruct_step_defs:
    'FILE features/steps/greet.steps.js\n// Step definitions for features/greet.feature\nconst { greet } = require("../../src/greet.js");\nmodule.exports = { when: (name) => greet(name) };\nEND',
  instruct_unit_tests:
    'Reproduce the bug in a unit test.\nFILE test/greet.test.js\nconst test = require("node:test");\nconst assert = require("node:assert/strict");\nconst { greet } = require("../src/greet.js");\ntest("greets by name", () => assert.equal(greet("Ada"), "Hello, Ada!"));\nEND',
  instruct_implementation: "Fix greet().\nFILE src/greet.js\nexports.greet = (name) => `Hello, ${name}!`;\nEND",
  instruct_refactor:
    'Name the greeting.\nFILE src/greet.js\nconst GREETING = "Hello";\nexports.greet = (name) => `${GREETING}, ${name}!`;\nEND',
  run_validation: "Check that everything is in place. Nothing to change.",
};

const orchestrator = new Client({ name: "bugfix-orchestrator", version: "1.0.0" });
await orchestrator.connect(
  new StreamableHTTPClientTransport(new URL(`${url}/v1/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }),
);

async function call(name, args) {
  const result = await orchestrator.callTool({ name, arguments: args });
  const text = result.content?.[0]?.text ?? "";
  const body = result.structuredContent ?? (text.startsWith("{") ? JSON.parse(text) : { text });
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return body;
}

async function untilIdle(worker) {
  for (let waited = 0; waited < 120_000; waited += 250) {
    const status = await call("check_worker_status", { worker });
    if (!status.busy) return status;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the worker's agent is still busy after two minutes`);
}

let workerId;
try {
  const worker = await call("spawn_worker", {
    name: "bugfix",
    repo,
    template: "library",
    model: "scripted",
    agent: { command: ["node", "/workspace/.agent/scripted-agent.mjs"] },
  });
  workerId = worker.id;
  console.log(`worker ${worker.id} on ${worker.branch}`);

  const { task_id: task, hint } = await call("accept_goal", {
    goal: "greet() says Hello, <name>!",
    type: "bugfix",
    worker: worker.id,
  });
  console.log(`task ${task}: ${hint}`);

  for (const [step, prompt] of Object.entries(PROMPTS)) {
    await call(step, { task_id: task, prompt });
    const status = await untilIdle(worker.id);
    const commit = await call("commit", { task_id: task });
    const checks = step === "run_validation" ? null : await call("run_quality_checks", { task_id: task });
    const verdict =
      checks === null
        ? ""
        : ` · checks ${checks.passed ? "passed" : "failed"}: ${checks.checks.map((check) => `${check.name}${check.passed ? "" : " ✗"}`).join(", ")}`;
    console.log(
      `${step}: ${
        status.last_message
          .split("\n")
          .filter((line) => line.startsWith("wrote"))
          .join(", ") || "no edits"
      }${commit.commit_sha ? ` · commit ${commit.commit_sha.slice(0, 12)}` : ""}${verdict}`,
    );
    if (checks?.blocking) throw new Error(`the checks after ${step} block progress: ${JSON.stringify(checks.checks)}`);
  }

  const done = await call("mark_complete", { task_id: task, summary: "greet() says Hello, <name>!" });
  console.log(
    `complete: ${done.total_transitions} transitions, ${done.total_commits} commits, ${Math.round(done.duration)} ms`,
  );

  const response = await fetch(`${url}/v1/workers/${worker.id}/export`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ branch: "fix/greeting" }),
  });
  const exported = await response.json();
  if (!response.ok) throw new Error(`export failed: ${exported.error?.message}`);
  console.log(`exported ${exported.commit.slice(0, 12)} to ${exported.branch} in ${repo}`);
  console.log(git("log", "--format=  %h %s", "main..fix/greeting"));
  console.log(`src/greet.js on fix/greeting:\n${git("show", "fix/greeting:src/greet.js")}`);
} finally {
  if (workerId !== undefined) await call("remove_worker", { worker: workerId }).catch(() => undefined);
  await orchestrator.close();
}
