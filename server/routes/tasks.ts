import { Hono } from "hono";
import type { PipelineService } from "../../runtime/pipeline/pipeline-service.js";

/** `/v1/tasks`: the pipeline's tasks and their transitions. */
export function createTaskRoutes(pipeline: PipelineService): Hono {
  const app = new Hono();
  app.get("/", async (c) => c.json({ tasks: await pipeline.list() }));
  app.get("/:id", async (c) => c.json(await pipeline.get(c.req.param("id"))));
  return app;
}
