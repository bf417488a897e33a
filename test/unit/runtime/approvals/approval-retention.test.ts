import { describe, expect, it } from "vitest";
import type { Approval } from "../../../../runtime/approvals/approval.js";
import { selectPrunable } from "../../../../runtime/approvals/approval-retention.js";

const DAY_MS = 24 * 60 * 60_000;
const now = Date.parse("2026-01-10T00:00:00Z");
const approval = (id: string, status: Approval["status"], decidedDaysAgo: number): Approval => ({
  id,
  workerId: "w1",
  kind: "tool",
  tool: "shell",
  input: {},
  description: "",
  status,
  createdAt: new Date(now - decidedDaysAgo * DAY_MS - 1_000).toISOString(),
  expiresAt: new Date(now).toISOString(),
  ...(status === "pending" ? {} : { decidedAt: new Date(now - decidedDaysAgo * DAY_MS).toISOString() }),
});

describe("selectPrunable", () => {
  it("drops decided approvals older than the age limit and never pending ones", () => {
    const list = [
      approval("old", "approved", 8),
      approval("recent", "rejected", 1),
      approval("waiting", "pending", 30),
    ];
    expect(selectPrunable(list, now, { maxDecided: 100, maxAgeMs: 7 * DAY_MS })).toEqual(["old"]);
  });

  it("keeps only the newest decided approvals beyond the count limit", () => {
    const list = [
      approval("a", "approved", 3),
      approval("b", "abandoned", 1),
      approval("c", "timed_out", 2),
      approval("p", "pending", 5),
    ];
    expect(selectPrunable(list, now, { maxDecided: 1, maxAgeMs: 30 * DAY_MS }).sort()).toEqual(["a", "c"]);
  });
});
