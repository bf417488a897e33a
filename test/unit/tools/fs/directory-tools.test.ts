import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolServer } from "../../../../tools/server.js";

/** The text of a tool's answer, and whether it is an error. */
async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[];
    isError?: boolean;
  };
  return { text: result.content.map((part) => part.text).join(""), isError: result.isError === true };
}

describe("list_directory, directory_tree and get_file_info", () => {
  let root: string;
  let client: Client;
  let close: () => Promise<void>;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "workcell-directory-tools-"));
    // More entries than one event-loop turn takes, so walks cross turns.
    await mkdir(path.join(root, "many"));
    for (let i = 0; i < 600; i += 1)
      await writeFile(path.join(root, "many", `f${String(i).padStart(3, "0")}.txt`), "x".repeat(i));
    await mkdir(path.join(root, "src", "deep"), { recursive: true });
    await writeFile(path.join(root, "src", "deep", "a.ts"), "export {};\n");
    await writeFile(path.join(root, "src", "big.log"), "y".repeat(5_000));
    await symlink("deep/a.ts", path.join(root, "src", "inner"));
    await symlink("/etc/passwd", path.join(root, "src", "outside"));
    const { server } = createToolServer({ root });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: "test", version: "1" });
    await server.connect(serverSide);
    await client.connect(clientSide);
    close = async () => {
      await client.close();
      await server.close();
    };
  });
  afterAll(async () => {
    await close();
    await rm(root, { recursive: true, force: true });
  });

  it("lists every entry of a large directory with sizes, by size, and totals them", async () => {
    const { text, isError } = await call(client, "list_directory", { path: "many", sizes: true, sortBy: "size" });
    expect(isError).toBe(false);
    const lines = text.split("\n");
    expect(lines[0]).toBe("[FILE] f599.txt (599 B)");
    expect(lines.filter((line) => line.startsWith("[FILE]"))).toHaveLength(600);
    expect(lines.at(-1)).toBe(`Total: 600 files, 0 other entries, ${((599 * 600) / 2 / 1024).toFixed(1)} KB`);
  });

  it("marks directories and symlinks without following the link", async () => {
    const { text } = await call(client, "list_directory", { path: "src" });
    expect(text.split("\n")).toEqual(["[FILE] big.log", "[DIR] deep", "[LINK] inner", "[LINK] outside"]);
  });

  it("builds the tree across many entries, honouring excludes and depth", async () => {
    const tree = JSON.parse((await call(client, "directory_tree", { excludePatterns: ["**/*.log"] })).text) as {
      name: string;
      type: string;
      children?: unknown[];
    }[];
    expect(tree.map((entry) => entry.name)).toEqual(["many", "src"]);
    expect(tree[0]?.children).toHaveLength(600);
    expect(tree[1]).toEqual({
      name: "src",
      type: "directory",
      children: [
        { name: "deep", type: "directory", children: [{ name: "a.ts", type: "file" }] },
        { name: "inner", type: "symlink" },
        { name: "outside", type: "symlink" },
      ],
    });
    const shallow = JSON.parse((await call(client, "directory_tree", { path: "src", maxDepth: 1 })).text) as {
      name: string;
      children?: unknown[];
    }[];
    expect(shallow.find((entry) => entry.name === "deep")?.children).toEqual([]);
  });

  it("describes a file, the workspace root as a directory and what an inner link names; refuses an escaping link and a missing path", async () => {
    expect((await call(client, "get_file_info", { path: "src/big.log" })).text).toMatch(
      /^path: src\/big.log\ntype: file\nsize: 5000\n/,
    );
    expect((await call(client, "get_file_info", { path: "." })).text).toMatch(/type: directory/);
    // A link inside the workspace is followed to what it names, as the description says.
    expect((await call(client, "get_file_info", { path: "src/inner" })).text).toMatch(
      /^path: src\/deep\/a.ts\ntype: file\nsize: 11\n/,
    );
    expect((await call(client, "get_file_info", { path: "src/outside" })).text).toMatch(
      /refused: "src\/outside" is a symbolic link to "\/etc\/passwd", outside the workspace/,
    );
    const missing = await call(client, "get_file_info", { path: "src/absent.txt" });
    expect(missing.isError).toBe(true);
  });
});
