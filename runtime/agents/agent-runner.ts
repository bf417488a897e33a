import type { ContainerDriver, ExecSession } from "../docker/container-driver.js";
import { AppError } from "../errors/app-error.js";
import type { Worker } from "../workers/worker.js";

const KEPT_LINES = 40;
const LAST_MESSAGE_LINES = 5;

interface AgentRun {
  busy: boolean;
  lines: string[];
  exitCode: number | null;
  startedAt: number;
  finishedAt?: number;
  session?: ExecSession;
  done: Promise<void>;
}

/** What check_worker_status shows of a worker's agent. */
export interface AgentStatus {
  busy: boolean;
  lastMessage: string;
  exitCode: number | null;
}

/**
 * Runs workers' agents: the agent program starts inside the worker's container with the
 * prompt on stdin and the model in WORKCELL_MODEL; dispatch returns at once, and the
 * status says whether it is still busy and what it last printed.
 */
export class AgentRunner {
  private readonly runs = new Map<string, AgentRun>();

  constructor(
    private readonly driver: ContainerDriver,
    private readonly event: (workerId: string, type: string, data: Record<string, unknown>) => Promise<unknown>,
  ) {}

  /** Starts the worker's agent on a prompt; a worker runs one prompt at a time. */
  async dispatch(worker: Worker, containerId: string, prompt: string, stage: string): Promise<void> {
    if (worker.agent === undefined) {
      throw new AppError(
        "conflict",
        `Worker ${worker.id} has no agent to give the prompt to. Spawn it with agent: {command: [...]}.`,
      );
    }
    if (this.runs.get(worker.id)?.busy) {
      throw new AppError(
        "conflict",
        `The agent of worker ${worker.id} is still working on the previous prompt. Wait until check_worker_status says it is not busy.`,
      );
    }
    const env = [
      ...(worker.model === undefined ? [] : [`WORKCELL_MODEL=${worker.model}`]),
      ...Object.entries(worker.agent.env ?? {}).map(([name, value]) => `${name}=${value}`),
      `WORKCELL_STAGE=${stage}`,
    ];
    const session = await this.driver.attach(containerId, worker.agent.command, { env });
    let resolveDone!: () => void;
    const run: AgentRun = {
      busy: true,
      lines: [],
      exitCode: null,
      startedAt: Date.now(),
      session,
      done: new Promise((resolve) => (resolveDone = resolve)),
    };
    this.runs.set(worker.id, run);
    let partial = "";
    const collect = (chunk: Buffer) => {
      const text = partial + chunk.toString("utf8");
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      run.lines.push(...lines.filter((line) => line.trim() !== ""));
      if (run.lines.length > KEPT_LINES) run.lines.splice(0, run.lines.length - KEPT_LINES);
    };
    session.stdout.on("data", collect);
    session.stderr.on("data", collect);
    session.stdin.end(prompt);
    await this.event(worker.id, "agent_started", { stage, prompt });
    void session.exited.then(async (exitCode) => {
      if (partial.trim() !== "") run.lines.push(partial);
      run.busy = false;
      run.exitCode = exitCode;
      run.finishedAt = Date.now();
      await this.event(worker.id, "agent_finished", {
        stage,
        exitCode,
        durationMs: run.finishedAt - run.startedAt,
        result: run.lines.slice(-LAST_MESSAGE_LINES).join("\n"),
      }).catch(() => undefined);
      resolveDone();
    });
  }

  status(workerId: string): AgentStatus {
    const run = this.runs.get(workerId);
    if (run === undefined) return { busy: false, lastMessage: "", exitCode: null };
    return { busy: run.busy, lastMessage: run.lines.slice(-LAST_MESSAGE_LINES).join("\n"), exitCode: run.exitCode };
  }

  /** Resolves when the worker's agent is idle (or after `timeoutMs`). */
  async waitIdle(workerId: string, timeoutMs: number): Promise<boolean> {
    const run = this.runs.get(workerId);
    if (run === undefined || !run.busy) return true;
    return Promise.race([
      run.done.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
    ]);
  }

  /** Stops a worker's agent (the worker is going down). */
  stop(workerId: string): void {
    this.runs.get(workerId)?.session?.close();
  }
}
