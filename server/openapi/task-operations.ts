import { z } from "zod";
import { TaskSchema } from "../../runtime/pipeline/task.js";
import type { Operation } from "./operation.js";

/** The pipeline tasks, read-only. */
export const TASK_OPERATIONS: readonly Operation[] = [
  {
    method: "get",
    path: "/v1/tasks",
    id: "listTasks",
    summary: "Pipeline tasks.",
    tag: "tasks",
    ok: { status: 200, schema: z.object({ tasks: z.array(TaskSchema) }) },
  },
  {
    method: "get",
    path: "/v1/tasks/:id",
    id: "getTask",
    summary: "One pipeline task with its transitions.",
    tag: "tasks",
    ok: { status: 200, schema: TaskSchema },
  },
];
