import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ContainerDriver } from "../runtime/docker/container-driver.js";
import { catalogOf, summarizeRuntimes } from "../runtime/docker/runtime-choice.js";
import { AppError } from "../runtime/errors/app-error.js";
import { describeError } from "./error-hints.js";
import type { Workers } from "../runtime/workers/workers.js";
import type { WorkerPools } from "../runtime/workers/worker-pools.js";
import type { WorkerBridge } from "./mcp/worker-bridge.js";
import { bearerAuth, hostAndOriginGuard } from "./middleware/guards.js";
import type { ApprovalQueue } from "../runtime/approvals/approval-queue.js";
import type { PipelineService } from "../runtime/pipeline/pipeline-service.js";
import type { OrchestratorEndpoint } from "./orchestrator/orchestrator-endpoint.js";
import { createApprovalRoutes } from "./routes/approvals.js";
import { createTaskRoutes } from "./routes/tasks.js";
import { createPoolRoutes } from "./routes/pools.js";
import { createEventRoutes } from "./routes/events.js";
import { createWorkerRoutes } from "./routes/workers.js";
import type { EventLog } from "../runtime/events/event-log.js";
import { createRequire } from "node:module";
import { createDashboardRoutes } from "./dashboard/dashboard-routes.js";
import { DOCS_PAGE } from "./docs-page.js";
import { buildOpenApiDocument } from "./openapi.js";
import { ShellUpgrades } from "./shell-upgrade.js";

const VERSION = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

/** Everything the HTTP app needs; passed in so tests can wire their own. */
export interface AppDeps {
  readonly token: string;
  readonly workers: Pick<Workers, "lookup" | "lifecycle" | "sessions" | "permissions" | "tasks">;
  /** The warm pools (absent: GET /v1/pools lists none and POST is refused). */
  readonly pools?: WorkerPools;
  readonly bridge: WorkerBridge;
  readonly driver: ContainerDriver;
  /** Host header values accepted (computed once the port is known). */
  readonly allowedHosts: () => Set<string>;
  /** The base URL clients use, e.g. http://127.0.0.1:7070. */
  readonly baseUrl: () => string;
  readonly maxBodyBytes: number;
  readonly maxMcpBodyBytes: number;
  readonly log: (message: string) => void;
  readonly events: EventLog;
  readonly approvals: ApprovalQueue;
  readonly orchestrator: OrchestratorEndpoint;
  readonly pipeline: PipelineService;
  /** WORKCELL_RUNTIME, for what /health says about runtimes. */
  readonly configuredRuntime?: string | undefined;
  /** Interactive shells: the server hands its upgrade requests to them (without, every shell request is refused). */
  readonly shells?: ShellUpgrades;
}

function tooLarge(limit: number) {
  return () => {
    throw new AppError(
      "payload_too_large",
      `The request body is larger than ${limit} bytes. Send less, or raise the limit with WORKCELL_MAX_BODY_BYTES / WORKCELL_MAX_MCP_BODY_BYTES.`,
    );
  };
}

/** Builds the control plane's Hono app: guards, auth, REST routes and the MCP bridge. */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();

  app.onError((error, c) => {
    const { status, body } = describeError(error);
    if (status >= 500 && !(error instanceof AppError && error.code === "docker_unavailable")) {
      deps.log(
        `${c.req.method} ${c.req.path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
    // RFC 6750: a 401 names the scheme, which MCP clients read to know how to authenticate.
    if (status === 401) c.header("WWW-Authenticate", 'Bearer realm="workcell"');
    return c.json(body, status as 400);
  });
  app.notFound((c) => {
    const { status, body } = describeError(
      new AppError("not_found", `No route ${c.req.method} ${c.req.path}. See the API table in the README.`),
    );
    return c.json(body, status as 404);
  });

  app.use("*", hostAndOriginGuard(deps.allowedHosts));

  app.get("/health", async (c) => {
    try {
      const info = await deps.driver.info();
      const runtime = summarizeRuntimes(catalogOf(info), deps.configuredRuntime);
      return c.json({
        ok: true,
        docker: { available: true, version: info.serverVersion, apiVersion: info.apiVersion, runtime },
      });
    } catch (error) {
      const { body } = describeError(error);
      return c.json({ ok: false, docker: { available: false, error: body.error.message } }, 503);
    }
  });

  // The API's description is public (it holds no data); everything under /v1 needs the token.
  // Built on first request (the port is known by then) and kept: the schemas do not change at run time.
  let openApi: Record<string, unknown> | undefined;
  app.get("/openapi.json", (c) =>
    c.json((openApi ??= buildOpenApiDocument({ version: VERSION, serverUrl: deps.baseUrl() }))),
  );
  app.get("/docs", (c) => c.html(DOCS_PAGE));
  // The dashboard's page and assets hold no data; it signs in with the token like any client.
  app.route("/", createDashboardRoutes());

  app.use("/v1/*", bearerAuth(deps.token));

  app.all("/v1/mcp", bodyLimit({ maxSize: deps.maxMcpBodyBytes, onError: tooLarge(deps.maxMcpBodyBytes) }), async (c) =>
    deps.orchestrator.handle(c.req.raw),
  );
  app.route("/v1/tasks", createTaskRoutes(deps.pipeline));
  app.all(
    "/v1/workers/:id/mcp",
    bodyLimit({ maxSize: deps.maxMcpBodyBytes, onError: tooLarge(deps.maxMcpBodyBytes) }),
    async (c) => deps.bridge.handle(c.req.param("id"), c.req.raw),
  );
  app.use("/v1/workers/*", bodyLimit({ maxSize: deps.maxBodyBytes, onError: tooLarge(deps.maxBodyBytes) }));
  app.use("/v1/workers", bodyLimit({ maxSize: deps.maxBodyBytes, onError: tooLarge(deps.maxBodyBytes) }));
  app.get("/v1/workers/:id/shell", (deps.shells ?? new ShellUpgrades()).route(deps.workers.sessions));
  app.route("/v1/workers", createWorkerRoutes(deps.workers, deps.baseUrl));
  app.use("/v1/pools", bodyLimit({ maxSize: deps.maxBodyBytes, onError: tooLarge(deps.maxBodyBytes) }));
  app.route("/v1/pools", createPoolRoutes(deps.pools));
  app.use("/v1/approvals/*", bodyLimit({ maxSize: deps.maxBodyBytes, onError: tooLarge(deps.maxBodyBytes) }));
  app.route("/v1/approvals", createApprovalRoutes(deps.approvals));
  app.route(
    "/v1",
    createEventRoutes(deps.events, (id) =>
      deps.workers.lookup.get(id).then(
        () => true,
        () => false,
      ),
    ),
  );

  return app;
}
