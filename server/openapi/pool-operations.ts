import { z } from "zod";
import { PoolInputSchema, PoolStatusSchema } from "../../runtime/workers/worker-pools.js";
import type { Operation } from "./operation.js";

/** The warm pools: list them and size a repository's. */
export const POOL_OPERATIONS: readonly Operation[] = [
  {
    method: "get",
    path: "/v1/pools",
    id: "listPools",
    summary:
      "The warm pools: started containers waiting for default-policy workers, empty or holding a repository's clone.",
    tag: "pools",
    ok: { status: 200, schema: z.object({ pools: z.array(PoolStatusSchema) }) },
  },
  {
    method: "post",
    path: "/v1/pools",
    id: "setRepoPool",
    summary:
      "Keep `size` clones of `repo` ready in started containers (0 ends its pool), until the control plane stops; WORKCELL_POOL_REPOS sets pools at every start. A default-policy spawn of that repository then claims one.",
    tag: "pools",
    body: PoolInputSchema,
    ok: { status: 200, schema: PoolStatusSchema },
  },
];
