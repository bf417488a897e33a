import { PassThrough, Writable } from "node:stream";
import type Docker from "dockerode";
import type { AttachOptions, ExecSession } from "./container-driver.js";
import { translateEngineErrors } from "./engine-errors.js";

/** How an exec is opened: with or without stdin, and as whom when the options name nobody. */
export interface ExecSessionSettings {
  readonly withStdin: boolean;
  readonly defaultUser: string;
}

/**
 * Starts `argv` in a container with its streams attached. The session's streams end when
 * the exec's stream does, or when the container stops (whichever comes first), and
 * `exited` then settles with the exec's exit code (-1 when the engine does not say).
 */
export async function openExecSession(
  docker: Docker,
  id: string,
  argv: readonly string[],
  options: AttachOptions,
  settings: ExecSessionSettings,
): Promise<ExecSession> {
  const { withStdin } = settings;
  const { exec, stream } = await translateEngineErrors(async () => {
    const exec = await docker.getContainer(id).exec({
      Cmd: [...argv],
      User: options.user ?? settings.defaultUser,
      ...(options.workingDir === undefined ? {} : { WorkingDir: options.workingDir }),
      AttachStdin: withStdin,
      AttachStdout: true,
      AttachStderr: true,
      Tty: options.terminal !== undefined,
      ...(options.env === undefined ? {} : { Env: [...options.env] }),
    });
    const stream = await exec.start({ hijack: true, stdin: withStdin, Tty: options.terminal !== undefined });
    if (options.terminal !== undefined) await exec.resize({ w: options.terminal.columns, h: options.terminal.rows });
    return { exec, stream };
  });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  // A terminal's output comes as one raw stream; otherwise Docker multiplexes the two.
  if (options.terminal === undefined) docker.modem.demuxStream(stream, stdout, stderr);
  else stream.pipe(stdout);
  // Under gVisor (runsc) an exec's stream stays open when its container dies (killed, out
  // of memory): end it when the container stops, so nothing waits on a dead sandbox.
  const watch = new AbortController();
  docker
    .getContainer(id)
    .wait({ condition: "not-running", abortSignal: watch.signal })
    .then(
      () => (stream as unknown as { destroy?: () => void }).destroy?.(),
      () => undefined,
    );
  const exited = new Promise<number>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      watch.abort();
      stdout.end();
      stderr.end();
      exitCodeOf(exec).then(resolve, () => resolve(-1));
    };
    stream.on("end", finish);
    stream.on("close", finish);
    stream.on("error", finish);
  });
  const stdin = withStdin
    ? new Writable({
        write(chunk: Buffer, _encoding, callback) {
          stream.write(chunk, callback);
        },
        final(callback) {
          (stream as unknown as { end(cb: () => void): void }).end(() => callback());
        },
      })
    : new Writable({ write: (_chunk, _encoding, callback) => callback() });
  stdin.on("error", () => undefined);
  return {
    stdin,
    stdout,
    stderr,
    exited,
    close: () => {
      stdin.end();
      (stream as unknown as { destroy?: () => void }).destroy?.();
    },
    resize: async (columns, rows) => {
      if (options.terminal !== undefined) await translateEngineErrors(() => exec.resize({ w: columns, h: rows }));
    },
  };
}

async function exitCodeOf(exec: Docker.Exec): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const state = await exec.inspect();
    if (!state.Running && state.ExitCode !== null) return state.ExitCode;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return -1;
}
