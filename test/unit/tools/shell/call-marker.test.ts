import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALL_MARKER_VAR } from "../../../../contract/container.js";
import { findMarkedPids } from "../../../../tools/shell/call-marker.js";

let proc: string;

beforeAll(async () => {
  proc = await mkdtemp(path.join(tmpdir(), "workcell-proc-"));
  const environ = async (pid: string, vars: string[]) => {
    await mkdir(path.join(proc, pid));
    await writeFile(path.join(proc, pid, "environ"), vars.map((v) => `${v}\0`).join(""));
  };
  await environ("10", [`${CALL_MARKER_VAR}=abc`, "PATH=/bin"]);
  await environ("11", ["PATH=/bin", `${CALL_MARKER_VAR}=abc`]);
  await environ("12", [`${CALL_MARKER_VAR}=abcd`]);
  await environ("13", [`X${CALL_MARKER_VAR}=abc`]);
  await environ("14", [`${CALL_MARKER_VAR}=other`]);
  await mkdir(path.join(proc, "self"));
});

afterAll(async () => {
  await rm(proc, { recursive: true, force: true });
});

describe("findMarkedPids", () => {
  it("finds exactly the processes whose environment carries the marker as a whole variable", () => {
    expect(findMarkedPids("abc", proc).sort()).toEqual([10, 11]);
    expect(findMarkedPids("other", proc)).toEqual([14]);
    expect(findMarkedPids("missing", proc)).toEqual([]);
  });
});
