import { z } from "zod";
import { DASHBOARD_MODULES } from "../dashboard/dashboard-modules.js";
import type { Operation } from "./operation.js";

const HealthSchema = z.object({
  ok: z.boolean(),
  docker: z.object({
    available: z.boolean(),
    version: z.string().optional(),
    apiVersion: z.string().optional(),
    runtime: z
      .object({
        runtime: z
          .string()
          .describe("The OCI runtime a worker with the default policy runs under (runsc when the engine offers it)"),
        source: z
          .enum(["requested", "configured", "default"])
          .describe("configured: WORKCELL_RUNTIME; default: runsc when offered, else the engine's default"),
        offered: z.array(z.string()),
        exceptions: z.array(z.string()).describe("Policies that run under another runtime, or are refused, and why"),
      })
      .optional(),
    error: z.string().optional(),
  }),
});

/** `worker-detail` → `WorkerDetail`. */
const pascalCase = (name: string) => name.replace(/(?:^|-)([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The routes served without a token: health, this document, its reference page and the dashboard. */
export const META_OPERATIONS: readonly Operation[] = [
  {
    method: "get",
    path: "/health",
    id: "getHealth",
    summary: "Whether the control plane and the Docker engine are up (no token needed).",
    tag: "meta",
    public: true,
    ok: { status: 200, schema: HealthSchema },
  },
  {
    method: "get",
    path: "/openapi.json",
    id: "getOpenApi",
    summary: "This document.",
    tag: "meta",
    public: true,
    ok: { status: 200, description: "An OpenAPI 3.1 document." },
  },
  {
    method: "get",
    path: "/docs",
    id: "getDocs",
    summary: "A readable API reference rendered from this document.",
    tag: "meta",
    public: true,
    ok: { status: 200, contentType: "text/html" },
  },
  {
    method: "get",
    path: "/",
    id: "getDashboard",
    summary: "The web dashboard (it signs in with the token).",
    tag: "meta",
    public: true,
    ok: { status: 200, contentType: "text/html" },
  },
  {
    method: "get",
    path: "/dashboard/app.js",
    id: "getDashboardScript",
    summary: "The dashboard's script.",
    tag: "meta",
    public: true,
    ok: { status: 200, contentType: "text/javascript" },
  },
  ...DASHBOARD_MODULES.map((name): Operation => ({
    method: "get",
    path: `/dashboard/${name}`,
    id: `getDashboardModule${pascalCase(name.replace(/\.js$/, ""))}`,
    summary: `A module of the dashboard's script (${name}, imported by app.js).`,
    tag: "meta",
    public: true,
    ok: { status: 200, contentType: "text/javascript" },
  })),
  {
    method: "get",
    path: "/dashboard/style.css",
    id: "getDashboardStyles",
    summary: "The dashboard's styles.",
    tag: "meta",
    public: true,
    ok: { status: 200, contentType: "text/css" },
  },
];
