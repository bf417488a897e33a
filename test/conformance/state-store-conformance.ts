import { beforeEach, describe, expect, it } from "vitest";
import type { Approval } from "../../runtime/approvals/approval.js";
import type { Task } from "../../runtime/pipeline/task.js";
import type { StateStore } from "../../runtime/store/state-store.js";
import { sampleWorker } from "../unit/runtime/fixtures.js";

const CREATED_AT = "2026-01-01T00:00:00.000Z";

/** A pending tool approval for the suite. */
function sampleApproval(id: string, overrides: Partial<Approval> = {}): Approval {
  return {
    id,
    workerId: "0a1b2c3d",
    kind: "tool",
    tool: "shell",
    input: { command: "rm -rf build", nested: { paths: ["a", "b"] } },
    description: "Tool call: shell",
    status: "pending",
    createdAt: CREATED_AT,
    expiresAt: "2026-01-01T00:10:00.000Z",
    ...overrides,
  };
}

/** An active task just past accept_goal for the suite. */
function sampleTask(id: string, overrides: Partial<Task> = {}): Task {
  return {
    id,
    workerId: "0a1b2c3d",
    goal: "fix the rounding of totals",
    type: "bugfix",
    position: 0,
    blocked: false,
    status: "active",
    transitions: [{ from_stage: "start", to_stage: "accept_goal", created_at: CREATED_AT }],
    commits: 0,
    createdAt: CREATED_AT,
    ...overrides,
  };
}

const ids = (records: readonly { id: string }[]) => records.map((record) => record.id).sort();

/**
 * The behaviour of a StateStore that the runtime relies on, written once and run against
 * every implementation (lowdb on disk, the in-memory store): workers, approvals and tasks
 * come back as they were put, are replaced by id and deleted; callers only ever hold copies;
 * writes made at once are all kept; and a read sees a write issued before it. Order of lists
 * is not part of the contract (callers sort). `openStore` answers a new, empty store.
 */
export function describeStateStoreConformance(name: string, openStore: () => Promise<StateStore>): void {
  describe(`${name} behaves as a StateStore`, () => {
    let store: StateStore;
    beforeEach(async () => {
      store = await openStore();
    });

    it("lists nothing and finds nothing when it is empty", async () => {
      expect(await store.listWorkers()).toEqual([]);
      expect(await store.listApprovals()).toEqual([]);
      expect(await store.listTasks()).toEqual([]);
      expect(await store.getWorker("0a1b2c3d")).toBeUndefined();
      expect(await store.getApproval("ap_1")).toBeUndefined();
      expect(await store.getTask("task_1")).toBeUndefined();
    });

    it("answers a worker as it was put, by id and in the list, without fields that were never set", async () => {
      const worker = sampleWorker({ id: "11111111", env: { TOKEN_NAME: "value" } });
      delete worker.containerId;
      await store.putWorker(worker);
      expect(await store.getWorker("11111111")).toEqual(worker);
      expect(await store.listWorkers()).toEqual([worker]);
      expect(await store.getWorker("11111111")).not.toHaveProperty("containerId");
    });

    it("replaces a worker put again under the same id, keeping one record", async () => {
      await store.putWorker(sampleWorker({ id: "22222222", status: "starting" }));
      await store.putWorker(sampleWorker({ id: "22222222", status: "running", error: "none" }));
      expect(await store.listWorkers()).toHaveLength(1);
      expect(await store.getWorker("22222222")).toMatchObject({ status: "running", error: "none" });
    });

    it("deletes a worker, and deleting one that does not exist does nothing", async () => {
      await store.putWorker(sampleWorker({ id: "aaaaaaaa" }));
      await store.putWorker(sampleWorker({ id: "bbbbbbbb" }));
      await store.deleteWorker("aaaaaaaa");
      await store.deleteWorker("cccccccc");
      expect(await store.getWorker("aaaaaaaa")).toBeUndefined();
      expect(ids(await store.listWorkers())).toEqual(["bbbbbbbb"]);
    });

    it("keeps its own copy of what is put: changing the object afterwards changes nothing stored", async () => {
      const worker = sampleWorker({ id: "33333333" });
      const approval = sampleApproval("ap_copy");
      const task = sampleTask("task_copy");
      await Promise.all([store.putWorker(worker), store.putApproval(approval), store.putTask(task)]);
      worker.status = "failed";
      worker.objectDirs.push("/etc");
      worker.env.ADDED = "later";
      worker.resources.cpus = 64;
      (approval.input as { nested: { paths: string[] } }).nested.paths.push("c");
      task.transitions.push({ from_stage: "accept_goal", to_stage: "instruct_feature_file", created_at: CREATED_AT });
      expect(await store.getWorker("33333333")).toEqual(sampleWorker({ id: "33333333" }));
      expect(await store.getApproval("ap_copy")).toEqual(sampleApproval("ap_copy"));
      expect(await store.getTask("task_copy")).toEqual(sampleTask("task_copy"));
    });

    it("hands out copies: changing what get or list answered changes nothing stored", async () => {
      await Promise.all([
        store.putWorker(sampleWorker({ id: "44444444" })),
        store.putApproval(sampleApproval("ap_out")),
        store.putTask(sampleTask("task_out")),
      ]);
      const [got, listed] = [await store.getWorker("44444444"), (await store.listWorkers())[0]];
      if (got === undefined || listed === undefined) throw new Error("the stored worker was not found");
      got.status = "removed";
      listed.objectDirs.push("/elsewhere");
      const approval = await store.getApproval("ap_out");
      if (approval !== undefined) approval.status = "approved";
      const [task] = await store.listTasks();
      if (task !== undefined) task.transitions.length = 0;
      expect(await store.getWorker("44444444")).toEqual(sampleWorker({ id: "44444444" }));
      expect(await store.getApproval("ap_out")).toEqual(sampleApproval("ap_out"));
      expect(await store.getTask("task_out")).toEqual(sampleTask("task_out"));
    });

    it("answers approvals as they were put and replaces one put again under its id", async () => {
      await store.putApproval(sampleApproval("ap_1"));
      await store.putApproval(sampleApproval("ap_2", { workerId: "other" }));
      const decided = sampleApproval("ap_1", {
        status: "edited",
        decision: "edit",
        decidedAt: "2026-01-01T00:01:00.000Z",
        editedInput: { command: "ls" },
        scope: "once",
      });
      await store.putApproval(decided);
      expect(await store.getApproval("ap_1")).toEqual(decided);
      expect(ids(await store.listApprovals())).toEqual(["ap_1", "ap_2"]);
    });

    it("deletes the approvals named in one call, ignoring unknown ids and leaving the others", async () => {
      await Promise.all(["ap_1", "ap_2", "ap_3"].map((id) => store.putApproval(sampleApproval(id))));
      await store.deleteApprovals(["ap_1", "ap_3", "ap_unknown"]);
      await store.deleteApprovals([]);
      expect(ids(await store.listApprovals())).toEqual(["ap_2"]);
      expect(await store.getApproval("ap_1")).toBeUndefined();
    });

    it("answers tasks as they were put and replaces one put again under its id", async () => {
      const task = sampleTask("task_1");
      await store.putTask(task);
      const advanced: Task = {
        ...task,
        position: 1,
        transitions: [
          ...task.transitions,
          {
            from_stage: "accept_goal",
            to_stage: "instruct_feature_file",
            prompt: "write the scenario",
            created_at: CREATED_AT,
          },
        ],
      };
      await store.putTask(advanced);
      await store.putTask(
        sampleTask("task_2", { status: "complete", completedAt: CREATED_AT, summary: "done", coverage: 87.5 }),
      );
      expect(await store.getTask("task_1")).toEqual(advanced);
      expect(await store.getTask("task_2")).toMatchObject({ status: "complete", coverage: 87.5 });
      expect(ids(await store.listTasks())).toEqual(["task_1", "task_2"]);
    });

    it("keeps workers, approvals and tasks apart even when their ids are equal", async () => {
      await store.putWorker(sampleWorker({ id: "same" }));
      await store.putApproval(sampleApproval("same"));
      await store.putTask(sampleTask("same"));
      await store.deleteWorker("same");
      expect(await store.getApproval("same")).toEqual(sampleApproval("same"));
      expect(await store.getTask("same")).toEqual(sampleTask("same"));
      await store.deleteApprovals(["same"]);
      expect(await store.getTask("same")).toEqual(sampleTask("same"));
    });

    it("loses none of many writes made at once", async () => {
      const keys = Array.from({ length: 40 }, (_, index) => index.toString(16).padStart(8, "0"));
      await Promise.all(
        keys.flatMap((key) => [
          store.putWorker(sampleWorker({ id: `w${key}` })),
          store.putApproval(sampleApproval(`ap_${key}`)),
          store.putTask(sampleTask(`task_${key}`)),
        ]),
      );
      expect(ids(await store.listWorkers())).toEqual(keys.map((key) => `w${key}`).sort());
      expect(ids(await store.listApprovals())).toEqual(keys.map((key) => `ap_${key}`).sort());
      expect(ids(await store.listTasks())).toEqual(keys.map((key) => `task_${key}`).sort());
    });

    it("lets a read issued right after a write, before the write settled, see it", async () => {
      const put = store.putWorker(sampleWorker({ id: "55555555" }));
      const removal = store.deleteApprovals(["ap_gone"]);
      const putApproval = store.putApproval(sampleApproval("ap_gone"));
      const [worker, approvals] = await Promise.all([store.getWorker("55555555"), store.listApprovals()]);
      await Promise.all([put, removal, putApproval]);
      expect(worker?.id).toBe("55555555");
      expect(ids(approvals)).toEqual(["ap_gone"]);
    });
  });
}
