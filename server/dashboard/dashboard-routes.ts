import { readFileSync } from "node:fs";
import { Hono } from "hono";
import { DASHBOARD_ENTRY, DASHBOARD_MODULES } from "./dashboard-modules.js";

const here = new URL(".", import.meta.url);
const asset = (name: string) => readFileSync(new URL(name, here), "utf8");

/** The dashboard's files, read once; they are plain HTML, CSS and ES modules (no build step). */
const ASSETS = {
  html: asset("index.html"),
  css: asset("style.css"),
  modules: [DASHBOARD_ENTRY, ...DASHBOARD_MODULES].map((name) => [name, asset(name)] as const),
};

/**
 * Only the page's own files may run or load, it may only talk back to the control plane,
 * and no other site may frame it. The page itself holds no data: everything it shows is
 * fetched from /v1 with the token the operator types in.
 */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/** `GET /` and its assets under /dashboard/. */
export function createDashboardRoutes(): Hono {
  const app = new Hono();
  app.get("/", (c) => c.body(ASSETS.html, 200, { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8" }));
  for (const [name, source] of ASSETS.modules) {
    app.get(`/dashboard/${name}`, (c) =>
      c.body(source, 200, { ...SECURITY_HEADERS, "content-type": "text/javascript; charset=utf-8" }),
    );
  }
  app.get("/dashboard/style.css", (c) =>
    c.body(ASSETS.css, 200, { ...SECURITY_HEADERS, "content-type": "text/css; charset=utf-8" }),
  );
  return app;
}
