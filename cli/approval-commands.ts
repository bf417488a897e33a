/**
 * The commands of the approval queue: the pending calls, and a decision on one (approve,
 * edit and approve, reject). Everything shown that came from the server passes through
 * `safe` first.
 */
import type { Decision } from "../client/index.js";
import { escapeControls as safe } from "../contract/terminal-text.js";
import type { ClientCommand, CommandRun } from "./command-context.js";
import { summarizeArgs } from "./describe.js";
import { requireValue } from "./parse-flags.js";
import { table } from "./terminal-style.js";

async function listApprovals({ client, call, print }: CommandRun): Promise<number> {
  const approvals = await call(client.approvals({ status: "pending" }));
  print({ approvals }, () =>
    approvals.length === 0
      ? "no pending approvals"
      : table([
          ["ID", "WORKER", "CALL", "WHY"],
          ...approvals.map((a) =>
            [a.id, a.workerId, `${a.tool} ${summarizeArgs(a.input, 60)}`.trimEnd(), a.description].map((cell) =>
              safe(String(cell)).replace(/\n/g, "\\n"),
            ),
          ),
        ]),
  );
  return 0;
}

async function decide({ command, flags, first, client, call, print }: CommandRun): Promise<number> {
  const id = requireValue(first, "the approval id", command);
  const body =
    command === "reject"
      ? { decision: "reject", ...(flags.reason ? { reason: flags.reason } : {}) }
      : flags.input
        ? {
            decision: "edit",
            input: JSON.parse(flags.input as string) as unknown,
            ...(flags.scope ? { scope: flags.scope } : {}),
          }
        : { decision: "approve", ...(flags.scope ? { scope: flags.scope } : {}) };
  const decided = await call(client.decide(id, body as Decision));
  print(decided, () => safe(`${decided.id}: ${decided.status}`));
  return 0;
}

/** approvals, approve and reject. */
export const APPROVAL_COMMANDS: Record<string, ClientCommand> = {
  approvals: { options: {}, run: listApprovals },
  approve: { options: { scope: { type: "string" }, input: { type: "string" } }, run: decide },
  reject: { options: { reason: { type: "string" } }, run: decide },
};
