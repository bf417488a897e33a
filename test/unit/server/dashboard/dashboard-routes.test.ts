import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DASHBOARD_ENTRY, DASHBOARD_MODULES } from "../../../../server/dashboard/dashboard-modules.js";
import { createDashboardRoutes } from "../../../../server/dashboard/dashboard-routes.js";

const SERVED = [DASHBOARD_ENTRY, ...DASHBOARD_MODULES];

const folder = new URL("../../../../server/dashboard/", import.meta.url);
const IMPORT = /^import\s[^;]*?from\s+"\.\/([^"]+)";/gm;

/** app.js and every module it imports, directly or not, as the browser loads them. */
function moduleGraph(): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const [, imported] of readFileSync(new URL(name, folder), "utf8").matchAll(IMPORT)) visit(imported as string);
  };
  visit(DASHBOARD_ENTRY);
  return [...seen].sort();
}

describe("the dashboard's routes", () => {
  it("serve every module the page loads, and only those: app.js and what it imports", () => {
    const files = readdirSync(folder)
      .filter((name) => name.endsWith(".js"))
      .sort();
    expect([...SERVED].sort()).toEqual(moduleGraph());
    expect(moduleGraph()).toEqual(files);
  });

  it("serve each module as JavaScript with the page's Content-Security-Policy and headers", async () => {
    const app = createDashboardRoutes();
    const page = await app.request("/");
    for (const name of SERVED) {
      const response = await app.request(`/dashboard/${name}`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get("content-type"), name).toBe("text/javascript; charset=utf-8");
      for (const header of ["content-security-policy", "x-content-type-options", "referrer-policy", "cache-control"])
        expect(response.headers.get(header), `${name}: ${header}`).toBe(page.headers.get(header));
      expect(await response.text()).toBe(readFileSync(new URL(name, folder), "utf8"));
    }
  });

  it("answer no other file of the folder or outside it", async () => {
    const app = createDashboardRoutes();
    for (const path of [
      "/dashboard/dashboard-routes.ts",
      "/dashboard/index.html",
      "/dashboard/missing.js",
      "/dashboard/../app.ts",
      "/dashboard/%2e%2e/app.ts",
      "/dashboard/..%2fapp.ts",
      "/dashboard/app.js/",
    ])
      expect((await app.request(path)).status, path).toBe(404);
  });
});
