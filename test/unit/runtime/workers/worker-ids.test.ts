import { describe, expect, it, vi } from "vitest";
import { InMemoryStateStore } from "../../../../runtime/testing/in-memory-store.js";

// The ids come from these bytes, in order: a collision is forced rather than waited for.
const draws = vi.hoisted(() => ({ next: [] as string[] }));
vi.mock("node:crypto", async (original) => ({
  ...(await original<typeof import("node:crypto")>()),
  randomBytes: (size: number) => Buffer.from(draws.next.shift() ?? "ffffffff", "hex").subarray(0, size),
}));

const { WorkerIds } = await import("../../../../runtime/workers/worker-ids.js");

describe("WorkerIds", () => {
  it("never hands out an id a stored worker has or a pool slot set aside, until the slot lets it go", async () => {
    const store = new InMemoryStateStore();
    const ids = new WorkerIds(store);
    draws.next = ["aaaaaaaa"];
    const reserved = await ids.reserve();
    expect(reserved).toBe("aaaaaaaa");
    // A worker being created draws the reserved id, then a stored one, then a free one.
    await store.putWorker({ id: "bbbbbbbb" } as never);
    draws.next = ["aaaaaaaa", "bbbbbbbb", "cccccccc"];
    expect(await ids.next()).toBe("cccccccc");
    ids.release(reserved);
    draws.next = ["aaaaaaaa"];
    expect(await ids.next()).toBe("aaaaaaaa");
  });
});
