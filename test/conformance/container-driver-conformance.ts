import { randomBytes } from "node:crypto";
import { PassThrough, type Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ContainerDriver, ContainerSpec, ContainerState } from "../../runtime/docker/container-driver.js";
import { AppError } from "../../runtime/errors/app-error.js";

/** What the suite needs to know about the engine behind the driver. */
export interface ContainerDriverConformanceOptions {
  /** An image the engine has, whose containers offer sh, cat, sleep, printenv, pwd and `id -u`. */
  readonly image: string;
  /** Labels on every container the suite makes (beside its own), so a run that failed can be found and removed. */
  readonly labels: Readonly<Record<string, string>>;
  /** The uid an exec runs as when it names no user (the driver's sandbox user). */
  readonly defaultUid: number;
}

/** The programs the suite runs, by argv; a fake driver must be taught these (see the in-memory driver's test). */
export const SUITE_PROGRAMS = {
  /** The main command of the suite's containers: runs until the container stops. */
  keepRunning: ["sleep", "infinity"],
  /** Runs far longer than any case waits. */
  longSleep: ["sleep", "30"],
  /** Writes "out" to stdout and "err" to stderr, then exits 3. */
  output: ["sh", "-c", "printf out; printf err >&2; exit 3"],
  /** Reads one line, then behaves like `output` (for a session with a terminal). */
  prompted: ["sh", "-c", "read line; printf out; printf err >&2; exit 3"],
  /** A main command that exits at once with code 7. */
  exitSeven: ["sh", "-c", "exit 7"],
  /** Copies stdin to stdout until stdin ends. */
  cat: ["cat"],
  /** Prints the value of each named variable, one a line. */
  printenv: ["printenv", "CONFORMANCE_FROM_SPEC", "CONFORMANCE_FROM_EXEC"],
  pwd: ["pwd"],
  uid: ["id", "-u"],
} as const satisfies Record<string, readonly string[]>;

const CASE_LABEL = "dev.workcell.conformance.case";
const MISSING_IMAGE = "workcell-conformance-missing:none";

/**
 * The behaviour of a ContainerDriver that the runtime relies on, written once and run against
 * every implementation (DockerDriver on a real engine, the in-memory driver): a container's
 * lifecycle and the state inspect and list report, the errors for what does not exist or
 * does not run, one-shot execs (exit code, output, stdin, environment, identity, limits,
 * deadline, abort) and attached sessions (streams, terminal, close, death of the container).
 * Every container it makes carries `options.labels` and is removed after its case.
 */
export function describeContainerDriverConformance(
  name: string,
  makeDriver: () => ContainerDriver | Promise<ContainerDriver>,
  options: ContainerDriverConformanceOptions,
): void {
  describe(`${name} behaves as a ContainerDriver`, () => {
    let driver: ContainerDriver;
    const made: string[] = [];
    const spec = (overrides: Partial<ContainerSpec> = {}): ContainerSpec => ({
      name: `workcell-conformance-${randomBytes(5).toString("hex")}`,
      image: options.image,
      user: "0:0",
      capAdd: [],
      env: ["CONFORMANCE_FROM_SPEC=spec"],
      labels: { ...options.labels },
      workingDir: "/",
      command: [...SUITE_PROGRAMS.keepRunning],
      mounts: [],
      tmpfs: {},
      networkMode: "none",
      memoryMb: 256,
      cpus: 1,
      pids: 128,
      logMaxBytes: 1024 * 1024,
      ...overrides,
    });
    const create = async (overrides: Partial<ContainerSpec> = {}): Promise<string> => {
      const id = await driver.create(spec(overrides));
      made.push(id);
      return id;
    };
    const running = async (overrides: Partial<ContainerSpec> = {}): Promise<string> => {
      const id = await create(overrides);
      await driver.start(id);
      return id;
    };

    beforeAll(async () => {
      driver = await makeDriver();
    });
    afterEach(async () => {
      for (const id of made.splice(0)) await driver.remove(id);
    });
    afterAll(async () => {
      for (const container of (await driver?.list(options.labels)) ?? []) await driver.remove(container.id);
    });

    describe("container lifecycle", () => {
      it("creates a container that is not running yet and reports its name and labels", async () => {
        const wanted = spec({ labels: { ...options.labels, [CASE_LABEL]: "created" } });
        const id = await driver.create(wanted);
        made.push(id);
        expect(await driver.inspect(id)).toMatchObject({
          id,
          name: wanted.name,
          running: false,
          status: "created",
          exitCode: 0,
          oomKilled: false,
          labels: wanted.labels,
        });
      });

      it("starts a container, and starting it again while it runs changes nothing", async () => {
        const id = await running();
        await driver.start(id);
        expect(await driver.inspect(id)).toMatchObject({ running: true, status: "running" });
      });

      it("stops a running container, which then reports exited with a non-zero code; stopping it again does nothing", async () => {
        const id = await running();
        await driver.stop(id, 5);
        const stopped = await driver.inspect(id);
        expect(stopped).toMatchObject({ running: false, status: "exited" });
        expect(stopped?.exitCode).not.toBe(0);
        await driver.stop(id, 5);
        expect(await driver.inspect(id)).toEqual(stopped);
      });

      it("leaves a container that never started as created when it is stopped", async () => {
        const id = await create();
        await driver.stop(id, 5);
        expect(await driver.inspect(id)).toMatchObject({ running: false, status: "created" });
      });

      it("starts a stopped container again, which then reports running with exit code 0", async () => {
        const id = await running();
        await driver.stop(id, 5);
        await driver.start(id);
        expect(await driver.inspect(id)).toMatchObject({ running: true, status: "running", exitCode: 0 });
      });

      it("reports a container whose main program ends by itself as exited with that program's code", async () => {
        const id = await running({ command: [...SUITE_PROGRAMS.exitSeven] });
        const state = await waitFor(
          () => driver.inspect(id),
          (candidate) => candidate?.running === false,
        );
        expect(state).toMatchObject({ running: false, status: "exited", exitCode: 7 });
      });

      it("removes a running container: inspect answers undefined, list leaves it out, and removing it again does nothing", async () => {
        const id = await running();
        await driver.remove(id);
        expect(await driver.inspect(id)).toBeUndefined();
        expect((await driver.list(options.labels)).map((container) => container.id)).not.toContain(id);
        await expect(driver.remove(id)).resolves.toBeUndefined();
      });

      it("answers undefined for a container that does not exist, and stopping or removing it does nothing", async () => {
        const id = await create();
        await driver.remove(id);
        expect(await driver.inspect(id)).toBeUndefined();
        await expect(driver.stop(id, 5)).resolves.toBeUndefined();
        await expect(driver.remove(id)).resolves.toBeUndefined();
      });

      it("refuses to start a container that does not exist", async () => {
        const id = await create();
        await driver.remove(id);
        await expect(driver.start(id)).rejects.toThrow(/no such container/i);
      });

      it("refuses a second container with a name that is taken, even by one that is not running", async () => {
        const taken = spec();
        made.push(await driver.create(taken));
        await expect(create({ name: taken.name })).rejects.toThrow(/already in use/);
      });

      it("refuses a container from an image the engine does not have, and says which", async () => {
        await expect(create({ image: MISSING_IMAGE })).rejects.toThrow(
          new RegExp(`no such image.*${MISSING_IMAGE}`, "i"),
        );
      });

      it("refuses a container that names an OCI runtime the engine does not offer", async () => {
        await expect(create({ runtime: "workcell-conformance-no-runtime" })).rejects.toThrow(/unknown runtime/i);
      });

      it("lists the containers that carry every label asked for, running or not, with their state", async () => {
        const a = await create({ labels: { ...options.labels, [CASE_LABEL]: "a" } });
        const b = await running({ labels: { ...options.labels, [CASE_LABEL]: "b" } });
        const onlyA = await driver.list({ ...options.labels, [CASE_LABEL]: "a" });
        expect(onlyA.map((container) => container.id)).toEqual([a]);
        expect(onlyA[0]).toMatchObject({ running: false, status: "created", labels: { [CASE_LABEL]: "a" } });
        const both = await driver.list(options.labels);
        expect(both.map((container) => container.id)).toEqual(expect.arrayContaining([a, b]));
        expect(both.find((container) => container.id === b)).toMatchObject({ running: true, status: "running" });
        expect(await driver.list({ ...options.labels, [CASE_LABEL]: "none" })).toEqual([]);
      });

      it("knows which images it has", async () => {
        expect(await driver.imageExists(options.image)).toBe(true);
        expect(await driver.imageExists(MISSING_IMAGE)).toBe(false);
      });
    });

    describe("one-shot exec", () => {
      let shared: string;
      beforeAll(async () => {
        shared = await driver.create(spec({ labels: { ...options.labels, [CASE_LABEL]: "exec" } }));
        await driver.start(shared);
      });
      afterAll(async () => {
        await driver.remove(shared);
      });

      it("answers the program's exit code, with its stdout and stderr apart", async () => {
        const result = await driver.exec(shared, { argv: SUITE_PROGRAMS.output });
        expect({
          exitCode: result.exitCode,
          stdout: result.stdout.toString(),
          stderr: result.stderr.toString(),
        }).toEqual({ exitCode: 3, stdout: "out", stderr: "err" });
      });

      it("hands the program the stdin it was given", async () => {
        const result = await driver.exec(shared, { argv: SUITE_PROGRAMS.cat, stdin: Buffer.from("hello\nworld") });
        expect(result.stdout.toString()).toBe("hello\nworld");
        expect(result.exitCode).toBe(0);
      });

      it("gives the program the container's variables and the exec's own", async () => {
        const result = await driver.exec(shared, {
          argv: SUITE_PROGRAMS.printenv,
          env: ["CONFORMANCE_FROM_EXEC=exec"],
        });
        expect(result.stdout.toString()).toBe("spec\nexec\n");
      });

      it("runs the program as the sandbox user in the container's working directory unless told otherwise", async () => {
        expect((await driver.exec(shared, { argv: SUITE_PROGRAMS.uid })).stdout.toString().trim()).toBe(
          String(options.defaultUid),
        );
        expect((await driver.exec(shared, { argv: SUITE_PROGRAMS.pwd })).stdout.toString().trim()).toBe("/");
        expect((await driver.exec(shared, { argv: SUITE_PROGRAMS.uid, user: "0:0" })).stdout.toString().trim()).toBe(
          "0",
        );
        expect(
          (await driver.exec(shared, { argv: SUITE_PROGRAMS.pwd, workingDir: "/tmp" })).stdout.toString().trim(),
        ).toBe("/tmp");
      });

      it("writes stdout to the sink it is given instead of buffering it", async () => {
        const sink = new PassThrough();
        const received = textOf(sink);
        const result = await driver.exec(shared, {
          argv: SUITE_PROGRAMS.cat,
          stdin: Buffer.from("to the sink"),
          stdoutSink: sink,
        });
        expect(await received).toBe("to the sink");
        expect(result.stdout.length).toBe(0);
      });

      it("keeps no more than maxBufferBytes of output", async () => {
        const result = await driver.exec(shared, {
          argv: SUITE_PROGRAMS.cat,
          stdin: Buffer.alloc(4096, "a"),
          maxBufferBytes: 10,
        });
        expect(result.stdout.toString()).toBe("a".repeat(10));
      });

      it("kills a program that outlives its deadline and fails with timeout", async () => {
        const startedMs = Date.now();
        const error = await driver.exec(shared, { argv: SUITE_PROGRAMS.longSleep, timeoutMs: 1_000 }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe("timeout");
        expect(Date.now() - startedMs).toBeLessThan(15_000);
      });

      it("stops waiting when the caller aborts, and fails with conflict", async () => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(new Error("the caller gave up")), 100);
        const error = await driver.exec(shared, { argv: SUITE_PROGRAMS.longSleep, signal: controller.signal }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(AppError);
        expect(error).toMatchObject({
          code: "conflict",
          message: expect.stringMatching(/interrupted: the caller gave up/),
        });
      });

      it("refuses to run a program in a container that is not running or does not exist", async () => {
        const idle = await create();
        await expect(driver.exec(idle, { argv: SUITE_PROGRAMS.pwd })).rejects.toThrow(/is not running/);
        await driver.remove(idle);
        await expect(driver.exec(idle, { argv: SUITE_PROGRAMS.pwd })).rejects.toThrow(/no such container/i);
      });
    });

    describe("attached sessions", () => {
      it("streams stdin to the program and its stdout back, and closing stdin ends it with its exit code", async () => {
        const id = await running();
        const session = await driver.attach(id, SUITE_PROGRAMS.cat);
        const output = textOf(session.stdout);
        session.stdin.write("ping\n");
        session.stdin.end("pong\n");
        expect(await session.exited).toBe(0);
        expect(await output).toBe("ping\npong\n");
      });

      it("settles exited with the code of a program that ends by itself, once its output has arrived", async () => {
        const id = await running();
        const session = await driver.attach(id, SUITE_PROGRAMS.output);
        const [stdout, stderr, exitCode] = await Promise.all([
          textOf(session.stdout),
          textOf(session.stderr),
          session.exited,
        ]);
        expect({ stdout, stderr, exitCode }).toEqual({ stdout: "out", stderr: "err", exitCode: 3 });
      });

      it("merges stderr into stdout for a session with a terminal, which can be resized", async () => {
        const id = await running();
        const session = await driver.attach(id, SUITE_PROGRAMS.prompted, { terminal: { columns: 80, rows: 24 } });
        const [stdout, stderr] = [textOf(session.stdout), textOf(session.stderr)];
        await session.resize?.(100, 30);
        session.stdin.write("go\n");
        expect(await session.exited).toBe(3);
        expect(await stdout).toMatch(/outerr$/);
        expect(await stderr).toBe("");
      });

      it("ends the streams and settles exited when the session is closed while its program still runs", async () => {
        const id = await running();
        const session = await driver.attach(id, SUITE_PROGRAMS.longSleep);
        const output = textOf(session.stdout);
        session.close();
        expect(typeof (await session.exited)).toBe("number");
        expect(await output).toBe("");
      });

      it("ends what runs in a container when it stops: a pending exec answers a non-zero code and a session's exited settles", async () => {
        const id = await running();
        const session = await driver.attach(id, SUITE_PROGRAMS.longSleep);
        const output = textOf(session.stdout);
        const pending = driver.exec(id, { argv: SUITE_PROGRAMS.longSleep });
        await new Promise((resolve) => setTimeout(resolve, 300));
        await driver.stop(id, 5);
        expect((await pending).exitCode).not.toBe(0);
        expect(await session.exited).not.toBe(0);
        expect(await output).toBe("");
      });

      it("refuses to attach to a container that is not running or does not exist", async () => {
        const idle = await create();
        await expect(driver.attach(idle, SUITE_PROGRAMS.cat)).rejects.toThrow(/is not running/);
        await driver.remove(idle);
        await expect(driver.attach(idle, SUITE_PROGRAMS.cat)).rejects.toThrow(/no such container/i);
      });
    });
  });
}

/** The stream's text once it ends. */
function textOf(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.on("data", (chunk: Buffer | string) => (text += chunk.toString()));
    stream.on("end", () => resolve(text));
    stream.on("error", reject);
  });
}

/** Reads `read` until `done` accepts it (the engine reports a dying container within a few seconds). */
async function waitFor(
  read: () => Promise<ContainerState | undefined>,
  done: (state: ContainerState | undefined) => boolean,
): Promise<ContainerState | undefined> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const state = await read();
    if (done(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return read();
}
