#!/usr/bin/env node
// Spawns a worker on a repository, drives it with the official MCP SDK client, shows the
// diff, and removes the worker (the repository itself is never touched).
//
//   node examples/drive-worker.mjs /abs/path/to/a/git/repo
//
// Needs a running control plane (`npm start`); the URL and token come from WORKCELL_URL (else
// WORKCELL_HOST and WORKCELL_PORT, as the control plane binds) and WORKCELL_TOKEN, else
// http://127.0.0.1:7070 and the data dir's token (.workcell/token).
import { readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { WorkcellClient } from "workcell/client";

const repo = process.argv[2];
if (repo === undefined || !path.isAbsolute(repo)) {
  process.stderr.write("usage: node examples/drive-worker.mjs /abs/path/to/a/git/repo\n");
  process.exit(2);
}
const dataDir = process.env.WORKCELL_DATA_DIR ?? ".workcell";
const token = process.env.WORKCELL_TOKEN ?? readFileSync(path.join(dataDir, "token"), "utf8").trim();

// The three lines: a client, a worker, its MCP URL.
const workcell = new WorkcellClient({ token });
const worker = await workcell.spawn({ repo, name: "example" });
console.log(`spawned ${worker.id} on ${worker.branch}; MCP at ${worker.mcpUrl}`);

const mcp = new Client({ name: "workcell-example", version: "1.0.0" });
await mcp.connect(
  new StreamableHTTPClientTransport(new URL(worker.mcpUrl), { requestInit: { headers: workcell.headers } }),
);
try {
  const { tools } = await mcp.listTools();
  console.log(`${tools.length} tools: ${tools.map((tool) => tool.name).join(", ")}`);

  const listing = await mcp.callTool({ name: "list_directory", arguments: { path: "." } });
  console.log(`workspace:\n${listing.content.map((part) => part.text).join("\n")}`);

  const wrote = await mcp.callTool({
    name: "write_file",
    arguments: { path: "NOTES.md", content: "Written by an agent inside its sandbox.\n" },
  });
  console.log(wrote.content[0].text);

  const status = await mcp.callTool({ name: "git_status", arguments: {} });
  console.log(`git status:\n${status.content[0].text}`);
} finally {
  await mcp.close();
}

const diff = await workcell.diff(worker.id);
console.log(
  `diff since ${diff.baseCommit.slice(0, 12)}: ${diff.files.map((file) => `${file.status} ${file.path} +${file.additions}/-${file.deletions}`).join(", ")}`,
);

await workcell.remove(worker.id);
console.log(`removed ${worker.id}`);
