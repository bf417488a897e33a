import type { Worker } from "../../runtime/workers/worker.js";

/** The worker as the API answers it: fields that never leave the control plane removed, derived ones added. */
export function toPublicWorker(worker: Worker, baseUrl: string) {
  const {
    desired: _desired,
    objectDirs: _objectDirs,
    bindSources: _bindSources,
    env,
    gate,
    audit: _audit,
    agent,
    ...visible
  } = worker;
  return {
    ...visible,
    mcpUrl: `${baseUrl}/v1/workers/${worker.id}/mcp`,
    envNames: Object.keys(env),
    ...(agent === undefined ? {} : { agent: { command: agent.command, envNames: Object.keys(agent.env ?? {}) } }),
    network: worker.permissions.net === true ? "bridged" : Array.isArray(worker.permissions.net) ? "proxied" : "none",
    ...(gate === undefined
      ? {}
      : {
          task: gate.task,
          validation: { validated: gate.validatedTree !== null, consecutiveFailures: gate.failures },
        }),
  };
}
export type PublicWorker = ReturnType<typeof toPublicWorker>;
