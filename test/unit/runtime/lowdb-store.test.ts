import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LowdbStateStore } from "../../../runtime/store/lowdb-store.js";
import { sampleWorker } from "./fixtures.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "workcell-store-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("LowdbStateStore", () => {
  it("persists workers across reopen", async () => {
    const store = await LowdbStateStore.open(dir);
    await store.putWorker(sampleWorker({ id: "11111111" }));
    const reopened = await LowdbStateStore.open(dir);
    expect((await reopened.getWorker("11111111"))?.id).toBe("11111111");
    expect(JSON.parse(await readFile(path.join(dir, "state.json"), "utf8")).version).toBe(1);
  });

  it("loses no write when many arrive at once", async () => {
    const store = await LowdbStateStore.open(dir);
    const ids = Array.from({ length: 50 }, (_, i) => i.toString(16).padStart(8, "0"));
    await Promise.all(ids.map((id) => store.putWorker(sampleWorker({ id }))));
    const reopened = await LowdbStateStore.open(dir);
    expect((await reopened.listWorkers()).map((w) => w.id).sort()).toEqual(ids);
  });

  it("deletes workers", async () => {
    const store = await LowdbStateStore.open(dir);
    await store.putWorker(sampleWorker());
    await store.deleteWorker(sampleWorker().id);
    expect(await (await LowdbStateStore.open(dir)).listWorkers()).toEqual([]);
  });

  it("hands out copies, so callers cannot change stored state by accident", async () => {
    const store = await LowdbStateStore.open(dir);
    await store.putWorker(sampleWorker());
    const copy = await store.getWorker(sampleWorker().id);
    if (copy) copy.status = "failed";
    expect((await store.getWorker(sampleWorker().id))?.status).toBe("running");
  });

  it("refuses a corrupt or foreign state file instead of silently starting empty", async () => {
    await writeFile(path.join(dir, "state.json"), "{ not json");
    await expect(LowdbStateStore.open(dir)).rejects.toThrow(/not valid JSON/);
    await writeFile(path.join(dir, "state.json"), JSON.stringify({ version: 1, workers: { x: { id: 1 } } }));
    await expect(LowdbStateStore.open(dir)).rejects.toThrow(/does not match the expected shape/);
  });

  it("creates the data directory private to its owner", async () => {
    const nested = path.join(dir, "nested");
    await LowdbStateStore.open(nested);
    expect((await stat(nested)).mode & 0o777).toBe(0o700);
  });
});
