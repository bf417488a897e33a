import { describe, expect, it } from "vitest";
import type { ContainerSpec } from "../../../../runtime/docker/container-driver.js";
import { sandboxUser } from "../../../../runtime/docker/container-spec.js";
import { engineError } from "../../../../runtime/testing/engine-error.js";
import { KILLED_EXIT_CODE, readAll, reply } from "../../../../runtime/testing/fake-process.js";
import { InMemoryContainerDriver } from "../../../../runtime/testing/in-memory-driver.js";
import {
  describeContainerDriverConformance,
  SUITE_PROGRAMS,
} from "../../../conformance/container-driver-conformance.js";

const IMAGE = "workcell-sandbox:test";
const DEFAULT_UID = sandboxUser(process.getuid?.() ?? 1000, process.getgid?.() ?? 1000).uid;

/** The in-memory driver with the suite's programs taught, each doing what its real namesake does. */
function suiteDriver(): InMemoryContainerDriver {
  const driver = new InMemoryContainerDriver({ images: [IMAGE] });
  driver.onExec(["sleep"], ({ argv, signal }) => {
    const seconds = argv[1] === "infinity" ? undefined : Number(argv[1]);
    return new Promise<number>((resolve) => {
      const timer = seconds === undefined ? undefined : setTimeout(() => resolve(0), seconds * 1000).unref();
      signal.addEventListener("abort", () => (clearTimeout(timer), resolve(KILLED_EXIT_CODE)), { once: true });
    });
  });
  driver.onExec(SUITE_PROGRAMS.output, reply({ exitCode: 3, stdout: "out", stderr: "err" }));
  driver.onExec(SUITE_PROGRAMS.exitSeven, reply({ exitCode: 7 }));
  driver.onExec(SUITE_PROGRAMS.prompted, async ({ stdin, stdout, stderr }) => {
    for await (const chunk of stdin) if (String(chunk).includes("\n")) break;
    stdout.write("out");
    stderr.write("err");
    return 3;
  });
  driver.onExec(SUITE_PROGRAMS.cat, async ({ stdin, stdout }) => {
    for await (const chunk of stdin) stdout.write(chunk);
  });
  driver.onExec(["printenv"], ({ argv, env, stdout }) => {
    const values = argv
      .slice(1)
      .map((name) => env.findLast((entry) => entry.startsWith(`${name}=`))?.slice(name.length + 1));
    for (const value of values) if (value !== undefined) stdout.write(`${value}\n`);
    return values.includes(undefined) ? 1 : 0;
  });
  driver.onExec(SUITE_PROGRAMS.pwd, ({ workingDir, stdout }) => void stdout.write(`${workingDir}\n`));
  driver.onExec(SUITE_PROGRAMS.uid, ({ user, stdout }) => void stdout.write(`${user.split(":")[0]}\n`));
  return driver;
}

describeContainerDriverConformance("InMemoryContainerDriver", suiteDriver, {
  image: IMAGE,
  labels: { "dev.workcell.conformance": "true" },
  defaultUid: DEFAULT_UID,
});

const spec = (overrides: Partial<ContainerSpec> = {}): ContainerSpec => ({
  name: `c-${Math.random().toString(16).slice(2)}`,
  image: IMAGE,
  user: "0:0",
  capAdd: [],
  env: ["FROM_SPEC=1"],
  labels: {},
  workingDir: "/workspace",
  command: ["sleep", "infinity"],
  mounts: [],
  tmpfs: {},
  networkMode: "none",
  memoryMb: 256,
  cpus: 1,
  pids: 64,
  logMaxBytes: 1024,
  ...overrides,
});

async function runningContainer(
  driver: InMemoryContainerDriver,
  overrides: Partial<ContainerSpec> = {},
): Promise<string> {
  const id = await driver.create(spec(overrides));
  await driver.start(id);
  return id;
}

describe("InMemoryContainerDriver as a test double", () => {
  it("answers an exec nobody registered with exit 0 and no output, and records what was asked", async () => {
    const driver = new InMemoryContainerDriver({ images: [IMAGE] });
    const id = await runningContainer(driver);
    const result = await driver.exec(id, {
      argv: ["git", "status"],
      env: ["A=1"],
      stdin: Buffer.from("in"),
      user: "0:0",
    });
    expect(result).toEqual({ exitCode: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) });
    expect(driver.execs).toEqual([
      {
        kind: "exec",
        containerId: id,
        argv: ["git", "status"],
        env: ["A=1"],
        user: "0:0",
        workingDir: "/workspace",
        stdin: Buffer.from("in"),
        terminalSizes: [],
      },
    ]);
  });

  it("runs the latest registered program whose words start the argv", async () => {
    const driver = new InMemoryContainerDriver({ images: [IMAGE] });
    driver.onExec(["git"], reply({ stdout: "any git" }));
    driver.onExec(["git", "status"], reply({ stdout: "status" }));
    driver.onExec((argv) => argv.includes("--porcelain"), reply({ stdout: "porcelain", exitCode: 2 }));
    const id = await runningContainer(driver);
    const run = async (argv: string[]) => {
      const result = await driver.exec(id, { argv });
      return `${result.stdout.toString()}/${result.exitCode}`;
    };
    expect(await run(["git", "log"])).toBe("any git/0");
    expect(await run(["git", "status"])).toBe("status/0");
    expect(await run(["git", "status", "--porcelain"])).toBe("porcelain/2");
    expect(await run(["gitk"])).toBe("/0");
  });

  it("fails the next call of an operation with the injected error, once, and changes nothing", async () => {
    const driver = new InMemoryContainerDriver({ images: [IMAGE] });
    const id = await driver.create(spec());
    const refused = new Error("the engine is overloaded");
    driver.failNext("start", refused);
    driver.failNext("start");
    await expect(driver.start(id)).rejects.toBe(refused);
    await expect(driver.start(id)).rejects.toMatchObject({
      statusCode: 500,
      message: expect.stringMatching(/injected failure of start/),
    });
    expect(await driver.inspect(id)).toMatchObject({ running: false, status: "created" });
    await driver.start(id);
    expect(await driver.inspect(id)).toMatchObject({ running: true });
  });

  it("reports a container whose main process was killed for memory (in inspect only, as the engine does), and ends what ran in it", async () => {
    const driver = new InMemoryContainerDriver({ images: [IMAGE] });
    driver.onExec(
      ["agent"],
      ({ signal }) => new Promise<number>((resolve) => signal.addEventListener("abort", () => resolve(0))),
    );
    const id = await runningContainer(driver);
    const session = await driver.attach(id, ["agent"]);
    driver.exitContainer(id, { exitCode: 137, oomKilled: true });
    expect(await session.exited).toBe(KILLED_EXIT_CODE);
    expect(await driver.inspect(id)).toMatchObject({
      running: false,
      status: "exited",
      exitCode: 137,
      oomKilled: true,
    });
    expect(await driver.list({})).toMatchObject([{ id, exitCode: 137, oomKilled: false }]);
    await driver.start(id);
    expect(await driver.inspect(id)).toMatchObject({ running: true, exitCode: 0, oomKilled: false });
    expect(() => driver.exitContainer("missing", { exitCode: 1 })).toThrow(/not running/);
  });

  it("records a terminal's size when a session starts and each time it is resized", async () => {
    const driver = new InMemoryContainerDriver({ images: [IMAGE] });
    driver.onExec(["bash"], async ({ stdin }) => void (await readAll(stdin)));
    const id = await runningContainer(driver);
    const session = await driver.attach(id, ["bash", "-i"], { terminal: { columns: 80, rows: 24 } });
    await session.resize?.(120, 40);
    session.stdin.end();
    await session.exited;
    expect(driver.execs[0]).toMatchObject({
      kind: "attach",
      terminalSizes: [
        { columns: 80, rows: 24 },
        { columns: 120, rows: 40 },
      ],
    });
  });

  it("refuses an image it lacks until one is added or built, and reports the build's progress", async () => {
    const driver = new InMemoryContainerDriver();
    await expect(driver.create(spec())).rejects.toThrow(/No such image: workcell-sandbox:test/);
    const lines: string[] = [];
    await driver.buildImage("/tmp/context", ["Dockerfile"], "Dockerfile", IMAGE, (line) => lines.push(line));
    expect(lines).toEqual([`Successfully tagged ${IMAGE}`]);
    expect(await driver.imageExists(IMAGE)).toBe(true);
    driver.addImage("other:1");
    await expect(driver.create(spec({ image: "other:1" }))).resolves.toMatch(/^[0-9a-f]{64}$/);
  });

  it("rejects an exec whose program throws with that error, standing for an engine failure mid-exec", async () => {
    const driver = new InMemoryContainerDriver({ images: [IMAGE] });
    const lost = engineError(500, "server error", "connection to the engine was lost");
    driver.onExec(["flaky"], () => {
      throw lost;
    });
    const id = await runningContainer(driver);
    await expect(driver.exec(id, { argv: ["flaky"] })).rejects.toBe(lost);
  });

  it("offers the runtimes its engine facts name, and answers those facts", async () => {
    const driver = new InMemoryContainerDriver({ images: [IMAGE], info: { runtimes: ["runc", "runsc"], cpus: 8 } });
    await expect(driver.create(spec({ runtime: "runsc" }))).resolves.toBeTypeOf("string");
    expect(await driver.info()).toMatchObject({ runtimes: ["runc", "runsc"], cpus: 8, containers: 1 });
  });
});
