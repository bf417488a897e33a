import type { AgentRunner } from "../../runtime/agents/agent-runner.js";
import type { ContainerDriver } from "../../runtime/docker/container-driver.js";
import type { PipelineService } from "../../runtime/pipeline/pipeline-service.js";
import type { Workers } from "../../runtime/workers/workers.js";

/** What the orchestrator's tools work with. */
export interface OrchestratorDeps {
  readonly workers: Pick<Workers, "lookup" | "lifecycle" | "sessions" | "tasks">;
  readonly pipeline: PipelineService;
  readonly agents: AgentRunner;
  readonly driver: ContainerDriver;
  /** The control plane's own address, for each worker's MCP URL. */
  readonly baseUrl: () => string;
}
