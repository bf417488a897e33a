import { Hono } from "hono";
import { PoolInputSchema, type WorkerPools } from "../../runtime/workers/worker-pools.js";
import { AppError } from "../../runtime/errors/app-error.js";
import { parseJsonBody } from "../validate.js";

/** `/v1/pools`: the warm pools, and a repository's pool set while running. */
export function createPoolRoutes(pools: WorkerPools | undefined): Hono {
  const app = new Hono();
  app.get("/", (c) => c.json({ pools: pools?.status() ?? [] }));
  app.post("/", async (c) => {
    const input = await parseJsonBody(c, PoolInputSchema);
    if (pools === undefined)
      throw new AppError("conflict", "This control plane was started without warm pools, so none can be set.");
    return c.json(await pools.setRepoPool(input.repo, input.size));
  });
  return app;
}
