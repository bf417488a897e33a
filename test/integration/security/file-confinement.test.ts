import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { symlink } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  removeContainersOf,
  spawnWorker,
  startTestPlane,
  stopTestPlane,
  textOf,
  type ApiWorker,
  type TestPlane,
} from "../helpers/control-plane.js";
import { createTempDir } from "../helpers/test-repo.js";

let test: TestPlane;
let worker: ApiWorker;
let client: Client;

beforeAll(async () => {
  test = await startTestPlane();
  ({ worker } = await spawnWorker(test, await createTempDir("workcell-confine-")));
  ({ client } = await test.connect(worker.mcpUrl));
  await sh("mkdir -p /tmp/outside && echo secret > /tmp/outside/secret.txt");
});

afterAll(async () => {
  await client?.close();
  await stopTestPlane(test);
  await removeContainersOf([worker.id]);
});

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
const sh = async (command: string) =>
  ((await call("shell", { command })).structuredContent as { stdout: string; exitCode: number }).stdout;

async function expectRefused(name: string, args: Record<string, unknown>) {
  const result = await call(name, args);
  expect(result.isError, `${name} ${JSON.stringify(args)} must be refused`).toBe(true);
  expect(textOf(result)).toMatch(/refused|PermissionDenied/);
}

describe("file-tool confinement", () => {
  it("refuses ../ traversal, absolute paths outside, and the /workspace-evil prefix sibling", async () => {
    await expectRefused("read_file", { path: "../../tmp/outside/secret.txt" });
    await expectRefused("read_file", { path: "/tmp/outside/secret.txt" });
    await expectRefused("write_file", { path: "/workspace-evil/x", content: "x" });
    await expectRefused("write_file", { path: "/workspace/../tmp/outside/new.txt", content: "x" });
    await expectRefused("list_directory", { path: "/" });
  });

  it("refuses symlinks to / and to files outside, symlink chains that leave, and dangling links used for writes", async () => {
    await sh(
      "ln -sfn / to-root && ln -sfn /tmp/outside/secret.txt to-secret && ln -sfn to-secret chain-1 && ln -sfn chain-1 chain-2 && ln -sfn /tmp/outside/created.txt dangling",
    );
    await expectRefused("read_file", { path: "to-root/etc/passwd" });
    await expectRefused("read_file", { path: "to-secret" });
    await expectRefused("read_file", { path: "chain-2" });
    await expectRefused("write_file", { path: "dangling", content: "x" });
    await expectRefused("edit_file", { path: "chain-2", edits: [{ oldText: "secret", newText: "owned" }] });
    await expectRefused("code_edit", { path: "to-secret", command: "write", content: "owned" });
    expect(await sh("ls /tmp/outside; cat /tmp/outside/secret.txt")).toBe("secret.txt\nsecret\n");
  });

  it("refuses writes to new files under a symlinked parent", async () => {
    await sh("ln -sfn /tmp/outside out-dir");
    await expectRefused("write_file", { path: "out-dir/new.txt", content: "x" });
    await expectRefused("write_file", { path: "out-dir/deeper/new.txt", content: "x" });
    await expectRefused("create_directory", { path: "out-dir/made" });
    await expectRefused("move_file", { source: "README.md", destination: "out-dir/README.md" });
    expect(await sh("ls /tmp/outside")).toBe("secret.txt\n");
  });

  it("host-made symlinks are refused the same way", async () => {
    await symlink("/etc", path.join(worker.workspace, "host-etc"));
    await expectRefused("read_file", { path: "host-etc/passwd" });
  });

  it("writes nothing outside while a directory is swapped for a symlink in a loop during 1,000 writes", async () => {
    const swapper = (
      await call("start_process", {
        command: "while true; do rm -rf race; mkdir race; rm -rf race; ln -s /tmp/outside race; done",
        waitMs: 100,
      })
    ).structuredContent as { processId: string };
    let written = 0;
    for (let i = 0; i < 1_000; i += 1) {
      const result = await call("write_file", { path: `race/file-${i}.txt`, content: `write ${i}` });
      if (!result.isError) written += 1;
      if (i % 4 === 0) await call("read_file", { path: `race/file-${i}.txt` });
    }
    await call("kill_process", { processId: swapper.processId, signal: "SIGKILL" });
    expect(await sh("ls /tmp/outside")).toBe("secret.txt\n");
    // The loop really raced: some writes landed in the real directory, others were refused.
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(1_000);
  }, 120_000);
});
