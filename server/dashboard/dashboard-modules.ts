/** The dashboard's entry script, which index.html loads. */
export const DASHBOARD_ENTRY = "app.js";

/**
 * The ES modules the entry imports, directly or through each other. Each is served at exactly
 * /dashboard/<name> (no part of a request's path ever names a file), and the API document
 * lists each.
 */
export const DASHBOARD_MODULES = [
  "api.js",
  "approvals.js",
  "diff-view.js",
  "dom.js",
  "event-list.js",
  "event-stream.js",
  "highlight.js",
  "login.js",
  "state.js",
  "worker-detail.js",
  "workers.js",
] as const;
