import { randomBytes } from "node:crypto";
import { isoNow, systemClock, type Clock } from "../clock/clock.js";
import { AppError } from "../errors/app-error.js";
import type { StateStore } from "../store/state-store.js";
import type { Approval, ApprovalAnswer, ApprovalSettings, DecisionInput } from "./approval.js";
import { assertInputBounded } from "./approval-request.js";
import { DEFAULT_RETENTION, selectPrunable, type RetentionLimits } from "./approval-retention.js";

/** Approvals one worker may have waiting at once unless configured otherwise. */
export const DEFAULT_MAX_PENDING_PER_WORKER = 20;

/** What a gated call asks for. */
export interface ApprovalRequestInput {
  workerId: string;
  sessionId?: string;
  kind: "tool" | "permission";
  tool: string;
  input: unknown;
  description: string;
  permission?: { kind: string; target: string };
}

interface Waiter {
  resolve(answer: ApprovalAnswer): void;
  timer: NodeJS.Timeout;
}

const STATUS_OF: Record<DecisionInput["decision"], Approval["status"]> = {
  approve: "approved",
  reject: "rejected",
  edit: "edited",
};

/**
 * The operator's queue: gated calls wait here until a human decides (or the timeout does).
 * Records live in the state store, so pending ones outlive a restart as `abandoned`. The
 * store stays bounded: inputs are capped in size, each worker may have only so many
 * approvals waiting, and decided approvals are pruned by age and count.
 */
export class ApprovalQueue {
  private readonly waiters = new Map<string, Waiter>();
  /** Requests per worker being recorded or waiting (counted before the first await, so concurrent requests cannot slip past the cap). */
  private readonly open = new Map<string, number>();
  private readonly maxPendingPerWorker: number;
  private readonly retention: RetentionLimits;
  private readonly clock: Clock;

  constructor(
    private readonly store: StateStore,
    private readonly hooks: {
      event(workerId: string, type: string, data: Record<string, unknown>): Promise<unknown>;
      /** A permission approved for the worker's life becomes part of its policy. */
      grantForLife(workerId: string, permission: { kind: string; target: string }): Promise<void>;
    },
    limits: { maxPendingPerWorker?: number; retention?: RetentionLimits; clock?: Clock } = {},
  ) {
    this.maxPendingPerWorker = limits.maxPendingPerWorker ?? DEFAULT_MAX_PENDING_PER_WORKER;
    this.retention = limits.retention ?? DEFAULT_RETENTION;
    // Every time the queue records, and retention's idea of now, come from this one clock.
    this.clock = limits.clock ?? systemClock;
  }

  /** Deletes decided approvals beyond the retention limits (see selectPrunable). */
  async prune(): Promise<number> {
    const ids = selectPrunable(await this.store.listApprovals(), this.clock.now(), this.retention);
    if (ids.length > 0) await this.store.deleteApprovals(ids);
    return ids.length;
  }

  /** Marks approvals left pending by a previous run as abandoned (their calls died with their sessions). */
  async abandonLeftovers(): Promise<void> {
    for (const approval of await this.store.listApprovals()) {
      if (approval.status === "pending")
        await this.store.putApproval({ ...approval, status: "abandoned", decidedAt: isoNow(this.clock) });
    }
    await this.prune();
  }

  /**
   * Records the request and waits for the decision; `signal` withdraws it (the agent
   * cancelled). An input too large to review, or a worker already at its cap of waiting
   * approvals, is refused and nothing is stored.
   */
  async request(input: ApprovalRequestInput, settings: ApprovalSettings, signal: AbortSignal): Promise<ApprovalAnswer> {
    assertInputBounded(input.input);
    const open = this.open.get(input.workerId) ?? 0;
    if (open >= this.maxPendingPerWorker) {
      throw new AppError(
        "conflict",
        `Worker ${input.workerId} already has ${open} approvals waiting (the most allowed is ${this.maxPendingPerWorker}); this request was refused. Decide or cancel the pending ones first.`,
        {
          details: { pending: open, maxPending: this.maxPendingPerWorker },
        },
      );
    }
    this.open.set(input.workerId, open + 1);
    try {
      return await this.record(input, settings, signal);
    } finally {
      const left = (this.open.get(input.workerId) ?? 1) - 1;
      if (left > 0) this.open.set(input.workerId, left);
      else this.open.delete(input.workerId);
    }
  }

  private async record(
    input: ApprovalRequestInput,
    settings: ApprovalSettings,
    signal: AbortSignal,
  ): Promise<ApprovalAnswer> {
    const now = this.clock.now();
    const approval: Approval = {
      id: `ap_${randomBytes(6).toString("hex")}`,
      ...input,
      status: "pending",
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + settings.timeoutMs).toISOString(),
    };
    // The waiter exists before the record can be seen: a reviewer who decides the moment the
    // approval is listed must find the call still waiting, not an "abandoned" one.
    let waiter: Waiter | undefined;
    const answer = new Promise<ApprovalAnswer>((resolve) => {
      const timer = setTimeout(() => {
        void this.settle(
          approval.id,
          settings.onTimeout === "approve"
            ? { decision: "approve", reason: "approved on timeout" }
            : { decision: "reject", reason: `no decision within ${settings.timeoutMs} ms` },
          "timed_out",
        );
      }, settings.timeoutMs);
      timer.unref();
      waiter = { resolve, timer };
      this.waiters.set(approval.id, waiter);
    });
    try {
      await this.store.putApproval(approval);
      await this.hooks.event(input.workerId, "approval_requested", {
        approvalId: approval.id,
        tool: input.tool,
        args: input.input,
        description: input.description,
        sessionId: input.sessionId,
      });
    } catch (error) {
      if (waiter !== undefined) clearTimeout(waiter.timer);
      this.waiters.delete(approval.id);
      throw error;
    }
    const withdraw = () =>
      void (signal.reason === "session_closed"
        ? this.settle(approval.id, { decision: "reject", reason: "the MCP session ended while waiting" }, "abandoned")
        : this.settle(approval.id, { decision: "reject", reason: "the agent cancelled the call" }, "cancelled"));
    // A withdrawal that came while the record was being written still counts.
    if (signal.aborted) withdraw();
    else signal.addEventListener("abort", withdraw, { once: true });
    return answer;
  }

  /** A reviewer's decision; deciding twice is a conflict. */
  async decide(id: string, decision: DecisionInput): Promise<Approval> {
    const approval = await this.get(id);
    if (approval.status !== "pending") {
      throw new AppError("conflict", `Approval ${id} is already ${approval.status}; it cannot be decided again.`, {
        details: { status: approval.status },
      });
    }
    if (!this.waiters.has(id)) {
      await this.store.putApproval({ ...approval, status: "abandoned", decidedAt: isoNow(this.clock) });
      throw new AppError(
        "conflict",
        `Approval ${id} belongs to a call that no longer exists (its session ended); it was marked abandoned.`,
      );
    }
    const settled = await this.settle(id, decision, STATUS_OF[decision.decision]);
    if (decision.decision !== "reject" && decision.scope === "worker" && approval.permission !== undefined) {
      await this.hooks.grantForLife(approval.workerId, approval.permission);
    }
    return settled ?? (await this.get(id));
  }

  async get(id: string): Promise<Approval> {
    const approval = await this.store.getApproval(id);
    if (approval === undefined)
      throw new AppError(
        "not_found",
        `No approval with id "${id.slice(0, 64)}". List the pending approvals to see their ids.`,
        { details: { action: "list_approvals" } },
      );
    return approval;
  }

  async list(filter: { status?: string; workerId?: string }): Promise<Approval[]> {
    return (await this.store.listApprovals())
      .filter(
        (approval) =>
          (filter.status === undefined || approval.status === filter.status) &&
          (filter.workerId === undefined || approval.workerId === filter.workerId),
      )
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  private async settle(
    id: string,
    decision: {
      decision: DecisionInput["decision"];
      input?: Record<string, unknown>;
      reason?: string;
      scope?: "once" | "worker";
    },
    status: Approval["status"],
  ): Promise<Approval | undefined> {
    const waiter = this.waiters.get(id);
    if (waiter === undefined) return undefined;
    this.waiters.delete(id);
    clearTimeout(waiter.timer);
    const approval = await this.get(id);
    const decided: Approval = {
      ...approval,
      status,
      decision: decision.decision,
      decidedAt: isoNow(this.clock),
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
      ...(decision.scope === undefined ? {} : { scope: decision.scope }),
      ...(decision.input === undefined ? {} : { editedInput: decision.input }),
    };
    await this.store.putApproval(decided);
    await this.hooks.event(approval.workerId, "approval_decided", {
      approvalId: id,
      tool: approval.tool,
      decision: decision.decision,
      status,
      reason: decision.reason,
      durationMs: Date.parse(decided.decidedAt as string) - Date.parse(approval.createdAt),
    });
    await this.prune().catch(() => undefined);
    waiter.resolve({
      decision: decision.decision,
      approvalId: id,
      ...(decision.input === undefined ? {} : { input: decision.input }),
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
      ...(decision.scope === undefined ? {} : { scope: decision.scope }),
    });
    return decided;
  }
}
