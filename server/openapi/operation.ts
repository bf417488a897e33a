import type { z } from "zod";

/** An HTTP method the public API uses, as OpenAPI spells it. */
export type Method = "get" | "post" | "patch" | "delete";

/** One operation of the public API, described with the schemas its route validates with. */
export interface Operation {
  readonly method: Method;
  /** The Hono path, e.g. `/v1/workers/:id`. */
  readonly path: string;
  readonly id: string;
  readonly summary: string;
  readonly tag: string;
  readonly public?: boolean;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly bodyOptional?: boolean;
  readonly ok: {
    readonly status: number;
    readonly schema?: z.ZodType;
    readonly contentType?: string;
    readonly description?: string;
  };
}
