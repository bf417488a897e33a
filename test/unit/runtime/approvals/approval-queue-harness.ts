import { ApprovalQueue } from "../../../../runtime/approvals/approval-queue.js";
import { InMemoryStateStore } from "../../../../runtime/testing/in-memory-store.js";
import { ManualClock } from "../../../../runtime/testing/manual-clock.js";

/** A request to approve a shell call by `workerId`, with `input` as the call's arguments. */
export const request = (workerId: string, input: unknown = {}) => ({
  workerId,
  kind: "tool" as const,
  tool: "shell",
  input,
  description: "d",
});

/** Polls `condition` every 5 ms, for at most a second, until it holds. */
export const waitFor = async (condition: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await condition()); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
};

/** The ISO timestamp of `ms`, as the queue stamps its records. */
export const at = (ms: number) => new Date(ms).toISOString();

/** A queue on the in-memory store and a manual clock, recording the events it writes and the grants it makes. */
export const setUpQueue = (limits: { retention?: { maxDecided: number; maxAgeMs: number } } = {}) => {
  const clock = new ManualClock();
  const memory = new InMemoryStateStore();
  const events: { type: string; data: Record<string, unknown> }[] = [];
  const grants: { workerId: string; permission: { kind: string; target: string } }[] = [];
  const queue = new ApprovalQueue(
    memory,
    {
      event: async (_workerId, type, data) => void events.push({ type, data }),
      grantForLife: async (workerId, permission) => void grants.push({ workerId, permission }),
    },
    { ...limits, clock },
  );
  /** The oldest pending approval once the queue has recorded it. */
  const pending = async (workerId?: string) => {
    const filter = { status: "pending", ...(workerId === undefined ? {} : { workerId }) };
    await waitFor(async () => (await queue.list(filter)).length > 0);
    const [oldest] = await queue.list(filter);
    if (oldest === undefined) throw new Error("no approval was recorded as pending");
    return oldest;
  };
  return { clock, memory, events, grants, queue, pending };
};
