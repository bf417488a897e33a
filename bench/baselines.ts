import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import Docker from "dockerode";
import { Hono } from "hono";
import { z } from "zod";

/** `docker run --rm --network none <image> true`, hardened like a worker, through the engine API, under the workers' runtime. */
export async function dockerRunTrue(docker: Docker, image: string, runtime?: string): Promise<void> {
  const container = await docker.createContainer({
    Image: image,
    Cmd: ["true"],
    User: "1000:1000",
    HostConfig: {
      NetworkMode: "none",
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges:true"],
      ReadonlyRootfs: true,
      Init: true,
      AutoRemove: false,
      ...(runtime === undefined ? {} : { Runtime: runtime }),
    },
  });
  await container.start();
  await container.wait();
  await container.remove({ force: true });
}

/** A shared clone of `repo` into a scratch directory (what a worker's workspace costs). */
export async function sharedClone(repo: string): Promise<void> {
  const target = await mkdtemp(path.join(tmpdir(), "workcell-bench-clone-"));
  execFileSync("git", ["clone", "-q", "--shared", "--", repo, path.join(target, "ws")]);
  await rm(target, { recursive: true, force: true });
}

/**
 * The transport's own floor: the same two tools served by an in-process MCP server behind
 * the same Streamable HTTP transport on loopback. Answers a connected client and a stop function.
 */
export async function startInProcessFloor(file: string): Promise<{ client: Client; close: () => Promise<void> }> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const app = new Hono();
  app.all("/mcp", async (c) => {
    const id = c.req.header("mcp-session-id");
    if (id !== undefined)
      return (sessions.get(id) as WebStandardStreamableHTTPServerTransport).handleRequest(c.req.raw);
    const server = new McpServer({ name: "floor", version: "1" });
    server.registerTool("read_file", { inputSchema: { path: z.string() } }, async () => ({
      content: [{ type: "text", text: await readFile(file, "utf8") }],
    }));
    server.registerTool("ping", { inputSchema: {} }, async () => ({ content: [{ type: "text", text: "pong" }] }));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
  });
  const httpServer = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(started));
  });
  const port = (httpServer.address() as AddressInfo).port;
  const client = new Client({ name: "bench-floor", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  return {
    client,
    close: async () => {
      await client.close();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        (httpServer as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}

/** `docker exec <argv>` in a running container through the engine API, waited for until its output ends. */
export async function dockerExecToEnd(container: Docker.Container, argv: readonly string[]): Promise<void> {
  const exec = await container.exec({ Cmd: [...argv], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise<void>((resolve) => {
    stream.on("end", () => resolve());
    stream.resume();
  });
}
