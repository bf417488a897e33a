import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { currentCall } from "./approvals/approval-client.js";
import type { GateOutcome } from "./approvals/approval-gate.js";
import { answerErrorsAsToolResults, errorResult, type ToolCallContext } from "./tool-result.js";

/** Tool names: snake_case, starting with a letter. */
export const TOOL_NAME = /^[a-z][a-z0-9_]*$/;

/** One tool: its schema, description, annotations and handler. */
export interface ToolDefinition<Shape extends z.ZodRawShape> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Shape;
  readonly outputSchema?: z.ZodRawShape;
  readonly annotations: ToolAnnotations;
  readonly handler: (args: z.infer<z.ZodObject<Shape>>, context: ToolCallContext) => Promise<CallToolResult>;
}

interface RegisteredTool {
  readonly schema: z.ZodObject<z.ZodRawShape>;
  readonly handler: (args: never, context: ToolCallContext) => Promise<CallToolResult>;
}

/**
 * Registers tools on the MCP server after checking their names, and keeps the handlers so
 * tools can also be called in-process (by run_pipeline) with the same validation.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();

  /**
   * `decorate` sees every result before it leaves (to attach what the call recorded, such
   * as audit entries, to its `_meta`).
   */
  constructor(
    private readonly server: McpServer,
    private readonly decorate: (result: CallToolResult) => CallToolResult = (result) => result,
    /** Holds calls that need a human; may replace the arguments or answer instead of the tool. */
    private readonly gate?: (tool: string, args: Record<string, unknown>) => Promise<GateOutcome>,
  ) {}

  register<Shape extends z.ZodRawShape>(definition: ToolDefinition<Shape>): void {
    if (!TOOL_NAME.test(definition.name)) {
      throw new Error(`Tool name "${definition.name}" must match ${TOOL_NAME} (snake_case).`);
    }
    if (this.tools.has(definition.name)) throw new Error(`Tool "${definition.name}" is registered twice.`);
    const handleOrAnswerError = answerErrorsAsToolResults(definition.handler);
    const schema = strictArguments(definition.name, definition.inputSchema);
    // Every call runs with itself as the current call, so checks deep inside can ask a reviewer for it.
    const run = (args: never, context: ToolCallContext) =>
      currentCall().run({ tool: definition.name, context }, () =>
        this.runGated(definition.name, schema, args, context, handleOrAnswerError),
      );
    const handler = async (args: never, context: ToolCallContext) => this.decorate(await run(args, context));
    this.tools.set(definition.name, {
      schema: schema as unknown as z.ZodObject<z.ZodRawShape>,
      handler: run as RegisteredTool["handler"],
    });
    this.server.registerTool(
      definition.name,
      {
        description: definition.description,
        inputSchema: schema,
        ...(definition.outputSchema === undefined ? {} : { outputSchema: definition.outputSchema }),
        annotations: definition.annotations,
      },
      ((args: never, extra: ToolCallContext) => handler(args, extra)) as never,
    );
  }

  private async runGated(
    name: string,
    schema: z.ZodObject<z.ZodRawShape>,
    args: never,
    context: ToolCallContext,
    handler: (args: never, context: ToolCallContext) => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    if (this.gate === undefined) return handler(args, context);
    let outcome: GateOutcome;
    try {
      outcome = await this.gate(name, args as Record<string, unknown>);
    } catch (error) {
      return errorResult(
        `The approval for ${name} could not be obtained: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!outcome.run) return outcome.result;
    // The arguments as the server validated them, unless a reviewer edited them.
    if (outcome.args === args) return handler(args, context);
    const parsed = schema.safeParse(outcome.args);
    if (!parsed.success)
      return errorResult(
        `The reviewer's edited input for ${name} is invalid: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`).join("; ")}`,
      );
    return handler(parsed.data as never, context);
  }

  /** Names of every registered tool. */
  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Calls a tool in-process with the same validation the MCP server applies. */
  async call(name: string, args: unknown, context: ToolCallContext): Promise<CallToolResult> {
    const tool = this.tools.get(name);
    if (tool === undefined) return errorResult(`Unknown tool "${name}". Available: ${this.names().join(", ")}.`);
    const parsed = tool.schema.safeParse(args ?? {});
    if (!parsed.success) {
      const problems = parsed.error.issues
        .map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`)
        .join("; ");
      return errorResult(`Invalid arguments for ${name}: ${problems}`);
    }
    return tool.handler(parsed.data as never, context);
  }
}

/**
 * A tool's arguments as a closed object: a misspelt field is an error that names it and the
 * fields the tool takes, not silently ignored (and the JSON schema says additionalProperties: false).
 */
export function strictArguments<Shape extends z.ZodRawShape>(tool: string, shape: Shape) {
  const fields = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `unknown field${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((key) => JSON.stringify(key)).join(", ")}; ${tool} takes ${fields.length === 0 ? "no arguments" : fields.join(", ")}`
        : undefined,
  });
}
