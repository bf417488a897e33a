import type { ApprovalQueue } from "../../runtime/approvals/approval-queue.js";
import { buildApprovalRequest } from "../../runtime/approvals/approval-request.js";
import type { NetPrompter } from "../../runtime/workers/worker-egress.js";
import type { Workers } from "../../runtime/workers/workers.js";
import type { ApprovalHandler } from "../mcp/approval-relay.js";

/** What asking a reviewer needs: the worker's policy and settings, and the queue. */
export interface ApprovalPromptDeps {
  readonly workers: Pick<Workers, "lookup">;
  readonly approvals: ApprovalQueue;
  readonly dataDir: string;
  readonly log: (message: string) => void;
}

/** Asks a reviewer about a destination the worker's grants do not cover; anything that cannot be asked is refused. */
export function createNetPrompter({ workers, approvals, dataDir, log }: ApprovalPromptDeps): NetPrompter {
  return async (workerId, target) => {
    const worker = await workers.lookup.get(workerId);
    try {
      const request = buildApprovalRequest(
        { kind: "permission", tool: "net", input: null, permission: { kind: "net", target } },
        { policy: worker.permissions, settings: worker.approvals, dataDir },
      );
      const answer = await approvals.request(
        { workerId, ...request },
        worker.approvals,
        AbortSignal.timeout(worker.approvals.timeoutMs + 1_000),
      );
      return answer.decision !== "reject";
    } catch (error) {
      // A destination no grant could name, or a worker at its cap of waiting approvals: refused.
      log(`a net prompt of ${workerId} was refused: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  };
}

/** Queues the approval requests a worker's tools send, and answers with the reviewer's decision. */
export function createApprovalHandler({ workers, approvals, dataDir }: ApprovalPromptDeps): ApprovalHandler {
  return async ({ workerId, sessionId, params, signal }) => {
    const worker = await workers.lookup.get(workerId);
    // The request comes from inside the sandbox: the host validates it and writes the reviewer's text itself.
    const request = buildApprovalRequest(params, {
      policy: worker.permissions,
      settings: worker.approvals,
      dataDir,
    });
    return approvals.request(
      { workerId, ...(sessionId === undefined ? {} : { sessionId }), ...request },
      worker.approvals,
      signal,
    );
  };
}
