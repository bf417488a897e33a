import type { ExecIdentity } from "../docker/container-driver.js";

/** An exec or attach the driver ran, as the runtime asked for it. */
export interface ExecRecord {
  readonly kind: "exec" | "attach";
  readonly containerId: string;
  readonly argv: readonly string[];
  /** The exec's own variables (the container's are not repeated). */
  readonly env: readonly string[];
  readonly user: string;
  readonly workingDir: string;
  /** What a one-shot exec was given on stdin. */
  readonly stdin?: Buffer;
  /** A terminal's size at the start and after each resize (empty without a terminal). */
  readonly terminalSizes: { columns: number; rows: number }[];
}

/** A program to start in a container, and who asked for it. */
export interface ProgramRequest extends ExecIdentity {
  readonly kind: "exec" | "attach" | "main";
  readonly argv: readonly string[];
  readonly env?: readonly string[] | undefined;
  readonly stdin?: Buffer | undefined;
  readonly terminal?: { readonly columns: number; readonly rows: number } | undefined;
}

/** A program request with the driver's and the container's defaults filled in. */
export interface ResolvedRequest extends ProgramRequest {
  readonly env: readonly string[];
  readonly user: string;
  readonly workingDir: string;
}

/** The record of an exec or attach, copied so later changes to the request do not show in it. */
export function recordOf(containerId: string, kind: ExecRecord["kind"], request: ResolvedRequest): ExecRecord {
  return {
    kind,
    containerId,
    argv: [...request.argv],
    env: [...request.env],
    user: request.user,
    workingDir: request.workingDir,
    ...(request.stdin === undefined ? {} : { stdin: Buffer.from(request.stdin) }),
    terminalSizes: request.terminal === undefined ? [] : [{ ...request.terminal }],
  };
}
