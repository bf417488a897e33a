import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { USAGE } from "../../../cli/client-main.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const bundle = `${root}dist/cli.js`;

beforeAll(() => {
  execFileSync("npm", ["run", "-s", "build:cli"], { cwd: root });
});

describe("the prebuilt client CLI (dist/cli.js)", () => {
  it("runs on its own: usage, and each command's help", () => {
    const usage = spawnSync(process.execPath, [bundle, "--help"], { encoding: "utf8" });
    expect(usage.status).toBe(0);
    expect(usage.stdout).toBe(`${USAGE}\n`);
    const help = spawnSync(process.execPath, [bundle, "diff", "--help"], { encoding: "utf8" });
    expect(help.stdout).toMatch(/^workcell diff <id>/);
  });

  it("holds none of the control plane, the engine driver or the TypeScript loader, so it starts without them", () => {
    const code = readFileSync(bundle, "utf8");
    expect(code).not.toMatch(/startControlPlane|from "dockerode"|from "tsx|from "hono"/);
  });

  it("is what bin/workcell runs for client commands", () => {
    const bin = readFileSync(`${root}bin/workcell.mjs`, "utf8");
    expect(bin).toContain('new URL("../dist/cli.js", import.meta.url)');
    const viaBin = spawnSync(process.execPath, [`${root}bin/workcell.mjs`, "--help"], { encoding: "utf8" });
    expect(viaBin.stdout).toBe(`${USAGE}\n`);
  });
});
