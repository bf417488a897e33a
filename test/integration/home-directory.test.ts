import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnWorker,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir } from "./helpers/test-repo.js";

// The agent's tools (git, npm, pip, caches) expect a writable $HOME. runc leaves a tmpfs
// root-owned 0755 whatever its mode option says, so it must be mounted as the sandbox user's.
let test: TestPlane;
const workers: ApiWorker[] = [];

beforeAll(async () => {
  test = await startTestPlane();
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(workers.map((worker) => worker.id));
});

describe.each(["runc", "runsc"])("the sandbox user's home under %s", (runtime) => {
  let worker: ApiWorker;

  beforeAll(async () => {
    ({ worker } = await spawnWorker(test, await createTempDir("workcell-home-"), { runtime }));
    workers.push(worker);
  });

  async function exec(command: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const response = await test.api<{ exitCode: number; stdout: string; stderr: string }>(
      "POST",
      `/v1/workers/${worker.id}/exec`,
      { command, timeoutMs: 60_000 },
    );
    expect(response.status).toBe(200);
    return response.body;
  }

  it("belongs to the sandbox user and takes files", async () => {
    const result = await exec(
      'stat -c "%u:%g %A" "$HOME" && touch "$HOME/x" && echo written > "$HOME/x" && cat "$HOME/x"',
    );
    expect(result.stderr).toBe("");
    // runc keeps the image directory's mode (0755) whatever the mount asks; the owner is what counts.
    expect(result.stdout).toMatch(/^1000:1000 drwx[-r][-w][-x][-r][-w][-x]\nwritten\n$/);
  });

  it("takes a global git config", async () => {
    const result = await exec("git config --global user.name 'Home Test' && git config --global --get user.name");
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("Home Test\n");
  });

  it("takes npm's cache and logs (a local package added to the cache, offline)", async () => {
    const result = await exec(
      [
        "set -e",
        "mkdir -p /tmp/pkg && cd /tmp/pkg",
        `printf '%s' '{"name":"home-probe","version":"1.0.0"}' > package.json`,
        "npm pack --silent --offline > /dev/null",
        "npm cache add --offline ./home-probe-1.0.0.tgz",
        'test -d "$HOME/.npm/_cacache" && echo cached',
        'ls "$HOME/.npm/_logs" > /dev/null && echo logged',
      ].join("\n"),
    );
    expect(result.stdout).toBe("cached\nlogged\n");
    expect(result.exitCode).toBe(0);
  });
});
