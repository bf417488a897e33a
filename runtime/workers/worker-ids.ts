import { randomBytes } from "node:crypto";
import type { StateStore } from "../store/state-store.js";

/**
 * Hands out worker ids: eight hex digits no stored worker has and no warm pool slot has set
 * aside. A repository pool's slot takes its worker's id when it is prepared (its branch and
 * its pin in the source repository carry that id already, so a claim starts no git), and
 * until the slot is claimed or discarded no other worker may get the id.
 */
export class WorkerIds {
  private readonly reserved = new Set<string>();

  constructor(private readonly store: StateStore) {}

  /** An id for a worker being created now. */
  async next(): Promise<string> {
    for (;;) {
      const id = randomBytes(4).toString("hex");
      if (!this.reserved.has(id) && (await this.store.getWorker(id)) === undefined) return id;
    }
  }

  /** An id set aside for a pool slot's future worker, until `release`. */
  async reserve(): Promise<string> {
    const id = await this.next();
    this.reserved.add(id);
    return id;
  }

  /** Ends a reservation: the slot was claimed (its worker is stored) or discarded. */
  release(id: string): void {
    this.reserved.delete(id);
  }
}

/** The branch a worker works on: `workcell/<name prefix>-<id>`, the prefix its name or "agent". */
export function workerBranch(id: string, name: string | undefined): string {
  return `workcell/${name ?? DEFAULT_NAME_PREFIX}-${id}`;
}

/** A worker's name when none is given: `agent-<id>`. */
export function defaultWorkerName(id: string): string {
  return `${DEFAULT_NAME_PREFIX}-${id}`;
}

const DEFAULT_NAME_PREFIX = "agent";
