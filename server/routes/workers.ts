import { Hono, type Context, type Next } from "hono";
import { z } from "zod";
import { PermissionsInputSchema } from "../../runtime/permissions/policy.js";
import { ExecRequestSchema, ExportRequestSchema } from "../../runtime/workers/exec-request.js";
import type { Workers } from "../../runtime/workers/workers.js";
import { CreateWorkerInputSchema } from "../../runtime/workers/worker.js";
import { toPublicWorker } from "./present-worker.js";
import { AppError } from "../../runtime/errors/app-error.js";
import { parseJsonBody, parseQuery, WORKER_ID } from "../validate.js";

/** The query of `DELETE /v1/workers/:id`. */
export const RemoveQuerySchema = z.object({ keepWorkspace: z.enum(["true", "false"]).optional() }).strict();

/** The REST routes under /v1/workers. */
export function createWorkerRoutes(
  workers: Pick<Workers, "lookup" | "lifecycle" | "sessions" | "permissions" | "tasks">,
  baseUrl: () => string,
): Hono {
  const { lookup, lifecycle, sessions, tasks } = workers;
  const policies = workers.permissions;
  const app = new Hono();
  const present = (worker: Parameters<typeof toPublicWorker>[0]) => toPublicWorker(worker, baseUrl());

  // A malformed id is answered before any route reaches the workers.
  const knownShape = async (c: Context, next: Next) => {
    const id = c.req.param("id") ?? "";
    if (!WORKER_ID.test(id))
      throw new AppError(
        "not_found",
        `No worker with id "${id.slice(0, 64)}"; worker ids are 8 hex characters. List workers with GET /v1/workers.`,
      );
    await next();
  };
  app.use("/:id", knownShape);
  app.use("/:id/*", knownShape);

  app.post("/", async (c) => {
    const input = await parseJsonBody(c, CreateWorkerInputSchema);
    return c.json(present(await lifecycle.create(input)), 201);
  });

  app.get("/", async (c) => c.json({ workers: (await lookup.list()).map(present) }));

  app.get("/:id", async (c) => c.json(present(await lookup.get(c.req.param("id")))));

  app.delete("/:id", async (c) => {
    const query = parseQuery(c.req.query(), RemoveQuerySchema, "Use ?keepWorkspace=true or false.");
    return c.json(await lifecycle.remove(c.req.param("id"), { keepWorkspace: query.keepWorkspace === "true" }));
  });

  app.post("/:id/stop", async (c) => c.json(present(await lifecycle.stop(c.req.param("id")))));
  app.post("/:id/task", async (c) => c.json(present(await tasks.startNewTask(c.req.param("id")))));
  app.post("/:id/start", async (c) => c.json(present(await lifecycle.start(c.req.param("id")))));

  app.post("/:id/exec", async (c) => {
    const request = await parseJsonBody(c, ExecRequestSchema);
    return c.json(await sessions.exec(c.req.param("id"), request));
  });

  app.get("/:id/diff", async (c) => c.json(await sessions.diff(c.req.param("id"))));

  app.get("/:id/permissions", async (c) => c.json({ permissions: await policies.permissions(c.req.param("id")) }));
  app.patch("/:id/permissions", async (c) => {
    const input = await parseJsonBody(c, PermissionsInputSchema);
    const { permissions, appliesOnNextStart } = await policies.updatePermissions(c.req.param("id"), input);
    return c.json({
      permissions,
      appliesOnNextStart,
      message: appliesOnNextStart
        ? "Saved. The tools and the egress proxy use it now; the mounts or network mode it changes apply on the next POST /start (or stop + start)."
        : "Saved and in effect.",
    });
  });
  app.get("/:id/permissions/suggested", async (c) => {
    const id = c.req.param("id");
    const { permissions, skipped } = await policies.suggestedPermissions(id);
    return c.json({ permissions, recorded: (await lookup.get(id)).audit, skipped });
  });

  app.post("/:id/export", async (c) => {
    const request = await parseJsonBody(c, ExportRequestSchema, { optional: true });
    return c.json(await sessions.export(c.req.param("id"), request.branch));
  });

  return app;
}
