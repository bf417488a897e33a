import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveControlPlaneUrl, WorkcellClient } from "../../../client/index.js";

describe("resolveControlPlaneUrl", () => {
  it("takes WORKCELL_URL first, without a trailing slash", () => {
    expect(resolveControlPlaneUrl({ WORKCELL_URL: "http://plane.internal:9000/", WORKCELL_PORT: "1234" })).toBe(
      "http://plane.internal:9000",
    );
  });

  it("otherwise builds the address from WORKCELL_HOST and WORKCELL_PORT, as the control plane binds", () => {
    expect(resolveControlPlaneUrl({ WORKCELL_PORT: "7171" })).toBe("http://127.0.0.1:7171");
    expect(resolveControlPlaneUrl({ WORKCELL_HOST: "localhost", WORKCELL_PORT: "8080" })).toBe("http://localhost:8080");
    expect(resolveControlPlaneUrl({ WORKCELL_HOST: "::1" })).toBe("http://[::1]:7070");
    expect(resolveControlPlaneUrl({})).toBe("http://127.0.0.1:7070");
  });
});

describe("WorkcellClient's address", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("sends its token to WORKCELL_PORT when that is all that is set, not to the default port", async () => {
    vi.stubEnv("WORKCELL_URL", "");
    vi.stubEnv("WORKCELL_HOST", "");
    vi.stubEnv("WORKCELL_PORT", "7171");
    const seen: string[] = [];
    const fetch = async (input: RequestInfo | URL) => {
      seen.push(String(input));
      return new Response(JSON.stringify({ workers: [] }), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    };
    const client = new WorkcellClient({ token: "t0ken-t0ken-t0ken", fetch: fetch as typeof globalThis.fetch });
    expect(client.url).toBe("http://127.0.0.1:7171");
    await client.list();
    expect(seen).toEqual(["http://127.0.0.1:7171/v1/workers"]);
  });
});
