import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { TEMPLATES } from "../../runtime/workers/templates.js";
import { AgentSpecSchema, type Worker } from "../../runtime/workers/worker.js";
import type { OrchestratorDeps } from "./orchestrator-deps.js";
import { answerErrorsAsToolResults, json, workerRef } from "./tool-io.js";

/** Registers the worker lifecycle tools: spawn, list, stop, remove, health check and model. */
export function registerWorkerTools(server: McpServer, deps: OrchestratorDeps): void {
  const { workers, agents } = deps;
  const { lookup, lifecycle, tasks } = workers;
  const summarize = (worker: Worker) => ({
    id: worker.id,
    name: worker.name,
    status: worker.status,
    branch: worker.branch,
    repo: worker.repo,
    mcpUrl: `${deps.baseUrl()}/v1/workers/${worker.id}/mcp`,
    model: worker.model ?? null,
    ...(worker.error ? { error: worker.error } : {}),
  });

  server.registerTool(
    "spawn_worker",
    {
      description: `Create a worker: an isolated clone of repo on its own branch in its own sandbox. Templates: ${Object.entries(
        TEMPLATES,
      )
        .map(([name, t]) => `${name} (${t.description})`)
        .join("; ")}.`,
      inputSchema: {
        name: z
          .string()
          .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be kebab-case")
          .max(40)
          .describe("Kebab-case name, also the branch prefix; unique among the workers"),
        repo: z.string().min(1).describe("Absolute path of the git repository on the control plane's host"),
        baseRef: z.string().optional().describe("Branch, tag or commit to start from (default HEAD)"),
        template: z
          .enum(Object.keys(TEMPLATES) as [string, ...string[]])
          .optional()
          .describe("Preset of permissions and resources"),
        model: z.string().optional().describe("Model for the worker's agent (WORKCELL_MODEL)"),
        agent: AgentSpecSchema.optional().describe("The agent program to run inside the worker"),
      },
      annotations: { destructiveHint: false },
    },
    (args) =>
      answerErrorsAsToolResults(async () => {
        const template = args.template === undefined ? undefined : TEMPLATES[args.template];
        const worker = await lifecycle.create({
          repo: args.repo,
          name: args.name,
          ...(args.baseRef === undefined ? {} : { baseRef: args.baseRef }),
          ...(args.model === undefined ? {} : { model: args.model }),
          ...(args.agent === undefined ? {} : { agent: args.agent }),
          ...(template === undefined ? {} : { permissions: template.permissions, resources: template.resources }),
        });
        return json({ ...summarize(worker), template: args.template ?? null });
      })(),
  );

  server.registerTool(
    "list_workers",
    { description: "All workers with their status.", inputSchema: {}, annotations: { readOnlyHint: true } },
    () =>
      answerErrorsAsToolResults(async () =>
        json({
          workers: (await lookup.list()).map((worker) => ({
            ...summarize(worker),
            busy: agents.status(worker.id).busy,
          })),
        }),
      )(),
  );

  server.registerTool(
    "stop_worker",
    {
      description: "Stop a worker's container (the workspace is kept).",
      inputSchema: { worker: workerRef },
      annotations: { destructiveHint: false },
    },
    ({ worker }) =>
      answerErrorsAsToolResults(async () => {
        const target = await lookup.resolve(worker);
        agents.stop(target.id);
        return json(summarize(await lifecycle.stop(target.id)));
      })(),
  );

  server.registerTool(
    "remove_worker",
    {
      description: "Remove a worker; its workspace is deleted unless delete_workspace is false.",
      inputSchema: {
        worker: workerRef,
        delete_workspace: z.boolean().optional().describe("Delete the workspace (default true)"),
      },
      annotations: { destructiveHint: true },
    },
    ({ worker, delete_workspace }) =>
      answerErrorsAsToolResults(async () => {
        const target = await lookup.resolve(worker);
        agents.stop(target.id);
        return json(await lifecycle.remove(target.id, { keepWorkspace: delete_workspace === false }));
      })(),
  );

  server.registerTool(
    "health_check",
    {
      description: "Find workers whose container crashed; with fix, restart them on their workspace.",
      inputSchema: { fix: z.boolean().optional().describe("Restart the crashed workers") },
      annotations: { destructiveHint: false },
    },
    ({ fix }) =>
      answerErrorsAsToolResults(async () => {
        const crashed = (await lookup.list()).filter(
          (worker) => worker.status === "failed" && worker.gate?.task?.status !== "failed",
        );
        const fixed: string[] = [];
        if (fix)
          for (const worker of crashed)
            if ((await lifecycle.start(worker.id)).status === "running") fixed.push(worker.id);
        return json({ healthy: crashed.length === 0, crashed: crashed.map(summarize), fixed });
      })(),
  );

  server.registerTool(
    "set_worker_model",
    {
      description: "Set the model the worker's agent uses from its next prompt on.",
      inputSchema: { worker: workerRef, model: z.string().min(1).max(200).describe("Model name") },
      annotations: { idempotentHint: true },
    },
    ({ worker, model }) =>
      answerErrorsAsToolResults(async () =>
        json(summarize(await tasks.setModel((await lookup.resolve(worker)).id, model))),
      )(),
  );
}
