import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

/** A control plane (`workcell serve`) in its own process, so its memory is measured alone. */
export interface ChildPlane {
  child: ChildProcess;
  url: string;
  token: string;
  rssBytes(): number;
  /** The control plane's last log lines (for a failure's cause). */
  logTail(): string;
  stop(): Promise<void>;
}

export function startChildPlane(
  projectRoot: string,
  dataDir: string,
  image: string,
  token: string,
  extraEnv: Record<string, string> = {},
): Promise<ChildPlane> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(projectRoot, "server", "cli.ts"), "serve"], {
    cwd: projectRoot,
    env: {
      ...process.env,
      WORKCELL_DATA_DIR: dataDir,
      WORKCELL_PORT: "0",
      WORKCELL_TOKEN: token,
      WORKCELL_IMAGE: image,
      WORKCELL_LOG_LEVEL: "warn",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      // Only the tail is kept: a long run logs much.
      output = (output + chunk.toString("utf8")).slice(-20_000);
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        resolve({
          child,
          url: match[1] as string,
          token,
          logTail: () => output.split("\n").slice(-15).join("\n"),
          rssBytes: () =>
            Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0) * 1024,
          stop: () =>
            new Promise<void>((done) => {
              child.once("exit", () => done());
              child.kill("SIGTERM");
            }),
        });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the control plane exited with ${code}: ${output}`)));
  });
}

/** Calls the plane's REST API with its token; a non-2xx answer throws with its body. */
export async function callPlane<T>(plane: ChildPlane, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${plane.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${plane.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
