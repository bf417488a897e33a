import { access, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  docker,
  removeContainersOf,
  spawnWorker,
  startTestPlane,
  stopTestPlane,
  type ApiWorker,
  type TestPlane,
} from "./helpers/control-plane.js";
import { createTempDir, git } from "./helpers/test-repo.js";

let test: TestPlane;
let scratch: string;
let repo: string;
let worker: ApiWorker;
const spawned: string[] = [];

beforeAll(async () => {
  test = await startTestPlane();
  scratch = await createTempDir("workcell-lifecycle-");
  ({ repo, worker } = await spawnWorker(test, scratch));
  spawned.push(worker.id);
});

afterAll(async () => {
  await stopTestPlane(test);
  await removeContainersOf(spawned);
});

interface ExecAnswer {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

const exec = (body: Record<string, unknown>) => test.api<ExecAnswer>("POST", `/v1/workers/${worker.id}/exec`, body);

describe("creating a worker", () => {
  it("answers 201 with the contract's fields: a shared clone on its own branch from HEAD", async () => {
    expect(worker).toMatchObject({
      status: "running",
      repo,
      baseRef: "HEAD",
      baseCommit: git(repo, "rev-parse", "HEAD"),
    });
    expect(worker.branch).toMatch(/^workcell\/agent-[0-9a-f]{8}$/);
    expect(worker.mcpUrl).toBe(`${test.plane.url}/v1/workers/${worker.id}/mcp`);
    for (const field of ["id", "name", "workspace", "image", "permissions", "resources", "createdAt", "updatedAt"])
      expect(worker).toHaveProperty(field);
    const alternates = await readFile(path.join(worker.workspace, ".git", "objects", "info", "alternates"), "utf8");
    expect(alternates.trim()).toBe(path.join(repo, ".git", "objects"));
    expect(git(repo, "rev-parse", `refs/workcell/${worker.id}/base`)).toBe(worker.baseCommit);
  });

  it("uses the name as the branch prefix and honours baseRef", async () => {
    git(repo, "tag", "v0");
    const response = await test.api<ApiWorker>("POST", "/v1/workers", { repo, name: "fix-login", baseRef: "v0" });
    expect(response.status).toBe(201);
    spawned.push(response.body.id);
    expect(response.body.branch).toMatch(/^workcell\/fix-login-[0-9a-f]{8}$/);
    expect(response.body.name).toBe("fix-login");
    const removed = await test.api("DELETE", `/v1/workers/${response.body.id}`);
    expect(removed.status).toBe(200);
  });

  it("refuses bad input with 400 naming the field, and leaves nothing behind", async () => {
    const before = (await test.api<{ workers: unknown[] }>("GET", "/v1/workers")).body.workers.length;
    const notGit = await createTempDir("workcell-notgit-");
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ repo: "relative/path" }, /repo: must be an absolute path/],
      [{ repo: "/nonexistent/repo" }, /repo: expected an existing directory/],
      [{ repo: notGit }, /repo: expected a git repository/],
      [{ repo, baseRef: "no-such-branch" }, /baseRef: "no-such-branch" does not name a commit/],
      [{ repo, name: "Not Kebab" }, /name: must be kebab-case/],
      [{ repo, resources: { memoryMb: 1 } }, /resources.memoryMb/],
      [{ repo, image: "workcell-no-such-image:latest" }, /image: .* does not exist/],
    ];
    for (const [body, message] of cases) {
      const response = await test.api<{ error: { code: string; message: string } }>("POST", "/v1/workers", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe("invalid_input");
      expect(response.body.error.message).toMatch(message);
    }
    expect((await test.api<{ workers: unknown[] }>("GET", "/v1/workers")).body.workers.length).toBe(before);
    expect(git(repo, "for-each-ref", "refs/workcell/").split("\n").filter(Boolean)).toHaveLength(1);
  });
});

describe("the container", () => {
  it("is hardened as docker inspect shows: no network, only the capabilities that start the sandbox user, read-only root, limits, labels", async () => {
    const info = await docker.getContainer(worker.containerId).inspect();
    const host = info.HostConfig;
    expect(host.NetworkMode).toBe("none");
    expect(host.CapDrop).toEqual(["ALL"]);
    // The container's root keeps only these, to start every process of the agent as the
    // non-root sandbox user (security/forged-channel.test.ts checks what those processes hold).
    expect([...(host.CapAdd ?? [])].sort()).toEqual(["SETGID", "SETPCAP", "SETUID"]);
    expect(host.Privileged).toBe(false);
    expect(host.SecurityOpt).toContain("no-new-privileges:true");
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.Init).toBe(true);
    // gVisor caps the sandbox's processes with RLIMIT_NPROC instead (see container-spec.ts).
    if (host.Runtime === "runsc") expect(host.Ulimits).toEqual([{ Name: "nproc", Soft: 512, Hard: 512 }]);
    else expect(host.PidsLimit).toBe(512);
    expect(host.Memory).toBe(2048 * 1024 * 1024);
    expect(host.NanoCpus).toBe(1e9);
    expect(host.LogConfig).toMatchObject({ Type: "json-file", Config: { "max-size": String(1024 * 1024) } });
    expect(Object.keys(host.Tmpfs ?? {}).sort()).toEqual(["/home/agent", "/tmp"]);
    for (const options of Object.values(host.Tmpfs ?? {})) expect(options).toMatch(/size=\d+m/);
    expect(info.Config.User).toBe("0:0");
    expect(info.Config.Cmd).toEqual(["/usr/libexec/workcell-sandbox-user", "1000", "1000", "sleep", "infinity"]);
    expect(info.Config.Env).toContain("WORKCELL_SANDBOX_USER=1000:1000");
    expect(info.Config.Labels).toMatchObject({ "dev.workcell.worker": worker.id, "dev.workcell.managed": "true" });
    const mounts = info.Mounts.map((mount) => ({ source: mount.Source, target: mount.Destination, rw: mount.RW })).sort(
      (a, b) => a.target.localeCompare(b.target),
    );
    expect(mounts).toEqual(
      [
        { source: worker.workspace, target: "/workspace", rw: true },
        { source: path.join(repo, ".git", "objects"), target: path.join(repo, ".git", "objects"), rw: false },
        { source: path.join(test.dataDir, "workers", worker.id, "run"), target: "/run/workcell", rw: false },
      ].sort((a, b) => a.target.localeCompare(b.target)),
    );
    expect(JSON.stringify(info)).not.toMatch(/docker\.sock/);
  });

  it("has no network interface but loopback", async () => {
    const result = await exec({ command: "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '" });
    expect(result.body.stdout.trim().split("\n")).toEqual(["lo"]);
  });
});

describe("exec", () => {
  it("runs a command inside the container and returns exit code, stdout, stderr and duration", async () => {
    const result = await exec({ command: "echo out; echo err >&2; cat /etc/os-release | head -1; exit 3" });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ exitCode: 3, stderr: "err\n", timedOut: false, truncated: false });
    expect(result.body.stdout).toMatch(/^out\nPRETTY_NAME="Debian GNU\/Linux 12/);
    expect(result.body.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("takes an argv, a cwd inside the workspace and env granted by name", async () => {
    const refused = await test.api<{ error: { code: string; message: string } }>(
      "POST",
      `/v1/workers/${worker.id}/exec`,
      { command: "true", env: { GREETING: "hi" } },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      'PermissionDenied: env access to "GREETING" is not granted; grant it with permissions.env',
    );
    const granted = await test.api("PATCH", `/v1/workers/${worker.id}/permissions`, { env: ["GREETING"] });
    expect(granted.body).toMatchObject({ appliesOnNextStart: false, permissions: { env: ["GREETING"] } });
    const result = await exec({ command: ["sh", "-c", "pwd; echo $GREETING"], cwd: "src", env: { GREETING: "hi" } });
    expect(result.body.stdout).toBe("/workspace/src\nhi\n");
  });

  it("kills the whole process group on timeout", async () => {
    const result = await exec({ command: "sleep 4321 & sleep 4322", timeoutMs: 500 });
    expect(result.body.timedOut).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const left = await exec({ command: "ps -eo args | grep -c '^sleep 432[12]' || true" });
    expect(left.body.stdout.trim()).toBe("0");
  });

  it("caps each stream at 100 KB with an explicit marker", async () => {
    const result = await exec({ command: "head -c 300000 /dev/zero | tr '\\\\0' a" });
    expect(result.body.truncated).toBe(true);
    expect(result.body.stdout).toContain("[... output truncated: 197600 bytes omitted ...]");
    expect(Buffer.byteLength(result.body.stdout)).toBeLessThan(103_000);
  });

  it("refuses a cwd outside the workspace with 400", async () => {
    const result = await test.api<{ error: { message: string } }>("POST", `/v1/workers/${worker.id}/exec`, {
      command: "pwd",
      cwd: "../etc",
    });
    expect(result.status).toBe(400);
    expect(result.body.error.message).toMatch(/refused/);
  });

  it("validates the body with a message naming the field", async () => {
    const result = await test.api<{ error: { message: string } }>("POST", `/v1/workers/${worker.id}/exec`, {
      command: "",
      timeoutMs: -1,
    });
    expect(result.status).toBe(400);
    expect(result.body.error.message).toMatch(/command/);
    expect(result.body.error.message).toMatch(/timeoutMs/);
  });
});

describe("diff", () => {
  it("shows committed, staged, unstaged and untracked changes since the base, without touching the index", async () => {
    await exec({
      command:
        "echo 'export const x = 1;' > src/new.ts && sed -i 's/a + b/b + a/' src/math.ts && git add src/math.ts && git commit -qm change && echo more >> README.md && mkdir -p ignored && echo no > ignored/x",
    });
    const statusBefore = (await exec({ command: "git status --porcelain" })).body.stdout;
    const diff = await test.api<{
      baseCommit: string;
      head: string;
      files: { path: string; status: string; additions: number; deletions: number }[];
      patch: string;
    }>("GET", `/v1/workers/${worker.id}/diff`);
    expect(diff.status).toBe(200);
    expect(diff.body.baseCommit).toBe(worker.baseCommit);
    expect(diff.body.head).not.toBe(worker.baseCommit);
    const files = Object.fromEntries(diff.body.files.map((file) => [file.path, file]));
    expect(files["src/math.ts"]).toMatchObject({ status: "modified", additions: 1, deletions: 1 });
    expect(files["src/new.ts"]).toMatchObject({ status: "added", additions: 1, deletions: 0 });
    expect(files["README.md"]).toMatchObject({ status: "modified", additions: 1 });
    expect(files["ignored/x"]).toBeUndefined();
    expect(diff.body.patch).toContain("+export const x = 1;");
    expect((await exec({ command: "git status --porcelain" })).body.stdout).toBe(statusBefore);
  });
});

describe("stop, start and remove", () => {
  it("stops and starts the worker, keeping the workspace", async () => {
    await writeFile(path.join(worker.workspace, "kept.txt"), "still here");
    const stopped = await test.api<ApiWorker>("POST", `/v1/workers/${worker.id}/stop`);
    expect(stopped.body.status).toBe("stopped");
    expect((await docker.getContainer(worker.containerId).inspect()).State.Running).toBe(false);
    const refused = await test.api<{ error: { code: string } }>("POST", `/v1/workers/${worker.id}/exec`, {
      command: "true",
    });
    expect(refused.status).toBe(409);
    const started = await test.api<ApiWorker>("POST", `/v1/workers/${worker.id}/start`);
    expect(started.body.status).toBe("running");
    expect((await exec({ command: "cat kept.txt" })).body.stdout).toBe("still here");
  });

  it("removes the container and the workspace on DELETE", async () => {
    const extra = await spawnWorker(test, scratch);
    spawned.push(extra.worker.id);
    const response = await test.api("DELETE", `/v1/workers/${extra.worker.id}`);
    expect(response).toEqual({ status: 200, body: { id: extra.worker.id, status: "removed" } });
    await expect(docker.getContainer(extra.worker.containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    await expect(access(extra.worker.workspace)).rejects.toThrow();
    expect(git(extra.repo, "for-each-ref", "refs/workcell/")).toBe("");
    expect((await test.api("GET", `/v1/workers/${extra.worker.id}`)).status).toBe(404);
  });

  it("keeps the files with keepWorkspace=true", async () => {
    const extra = await spawnWorker(test, scratch);
    spawned.push(extra.worker.id);
    const response = await test.api<{ workspace: string }>(
      "DELETE",
      `/v1/workers/${extra.worker.id}?keepWorkspace=true`,
    );
    expect(response.status).toBe(200);
    expect((await stat(path.join(response.body.workspace, "src", "math.ts"))).isFile()).toBe(true);
    await expect(docker.getContainer(extra.worker.containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });

  it("answers 404 for unknown workers", async () => {
    expect((await test.api("GET", "/v1/workers/deadbeef")).status).toBe(404);
    expect((await test.api("POST", "/v1/workers/deadbeef/exec", { command: "true" })).status).toBe(404);
  });
});
