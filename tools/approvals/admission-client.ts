import { randomBytes } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { currentCall } from "./approval-client.js";
import { ADMISSION_METHOD, ADMISSION_POSITION, ADMISSION_RELEASE } from "../../contract/wire.js";

const GrantSchema = z.object({ ticket: z.string() }).passthrough();
const PositionSchema = z.object({
  method: z.literal(ADMISSION_POSITION),
  params: z.object({ key: z.string(), position: z.number() }),
});

/** Waits for a slot for heavy work; answers the function that gives it back. */
export type Admit = (tool: string) => Promise<() => void>;

const WAIT_LIMIT_MS = 24 * 60 * 60_000;

/**
 * Asks the control plane for a host-wide slot before heavy work (builds, tests, heavy
 * shell commands) and reports the queue position to the agent as progress. Without a
 * control plane on the other end (a direct call), the work runs at once.
 */
export function createAdmitter(server: McpServer): Admit {
  const waiting = new Map<string, (position: number) => void>();
  server.server.setNotificationHandler(PositionSchema, async (notification) => {
    waiting.get(notification.params.key)?.(notification.params.position);
  });
  return async (tool) => {
    if (!server.isConnected()) return () => undefined;
    const call = currentCall().getStore();
    const key = randomBytes(6).toString("hex");
    const token = call?.context._meta?.progressToken;
    if (token !== undefined) {
      waiting.set(key, (position) => {
        void call?.context
          .sendNotification({
            method: "notifications/progress",
            params: {
              progressToken: token,
              progress: 0,
              message: `queued for a build/test slot: position ${position}`,
            },
          })
          .catch(() => undefined);
      });
    }
    try {
      const grant = await server.server.request(
        { method: ADMISSION_METHOD, params: { tool, key } } as never,
        GrantSchema,
        {
          timeout: WAIT_LIMIT_MS,
          ...(call === undefined ? {} : { signal: call.context.signal }),
        },
      );
      let released = false;
      return () => {
        if (released) return;
        released = true;
        void server.server
          .notification({ method: ADMISSION_RELEASE, params: { ticket: grant.ticket } } as never)
          .catch(() => undefined);
      };
    } finally {
      waiting.delete(key);
    }
  };
}
