import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { LowdbStateStore } from "../../../../runtime/store/lowdb-store.js";
import { describeStateStoreConformance } from "../../../conformance/state-store-conformance.js";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describeStateStoreConformance("LowdbStateStore", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "workcell-store-conformance-"));
  dirs.push(dir);
  return LowdbStateStore.open(dir);
});
