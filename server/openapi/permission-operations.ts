import { z } from "zod";
import { PermissionsInputSchema, PolicySchema } from "../../runtime/permissions/policy.js";
import { AuditEntrySchema } from "../../runtime/permissions/suggest.js";
import type { Operation } from "./operation.js";

const PermissionsUpdateSchema = z.object({
  permissions: PolicySchema,
  appliesOnNextStart: z.boolean(),
  message: z.string(),
});

/** A worker's permission policy: read it, change it, and the policy audit mode suggests. */
export const PERMISSION_OPERATIONS: readonly Operation[] = [
  {
    method: "get",
    path: "/v1/workers/:id/permissions",
    id: "getPermissions",
    summary: "The worker's permission policy.",
    tag: "permissions",
    ok: { status: 200, schema: z.object({ permissions: PolicySchema }) },
  },
  {
    method: "patch",
    path: "/v1/workers/:id/permissions",
    id: "updatePermissions",
    summary: "Change the policy; fields left out keep their value.",
    tag: "permissions",
    body: PermissionsInputSchema,
    ok: { status: 200, schema: PermissionsUpdateSchema },
  },
  {
    method: "get",
    path: "/v1/workers/:id/permissions/suggested",
    id: "suggestPermissions",
    summary: "The narrowest policy that covers what audit mode recorded.",
    tag: "permissions",
    ok: {
      status: 200,
      schema: z.object({
        permissions: PolicySchema,
        recorded: z.array(AuditEntrySchema),
        skipped: z.array(AuditEntrySchema.extend({ reason: z.string() })),
      }),
    },
  },
];
