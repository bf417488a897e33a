#!/usr/bin/env python3
"""Drive a workcell worker from Python with the official MCP SDK (the `mcp` package).

    python3 -m venv .venv && .venv/bin/pip install mcp
    .venv/bin/python examples/python_agent.py /abs/path/to/a/git/repo

It spawns a worker on the repository (REST), connects to the worker's MCP endpoint over
Streamable HTTP with the bearer token, lists the tools, reads the workspace, writes and
commits a file, shows the diff since the base, and removes the worker. The source
repository is never touched. The control plane must be running (`npm start`); the URL and
token come from WORKCELL_URL (else WORKCELL_HOST and WORKCELL_PORT) and WORKCELL_TOKEN, else
http://127.0.0.1:7070 and the data dir's token (.workcell/token).
"""

import asyncio
import json
import os
import sys
import urllib.request
from pathlib import Path

from mcp import ClientSession


def control_plane_url() -> str:
    """Where the control plane listens, found as every workcell client finds it."""
    explicit = os.environ.get("WORKCELL_URL", "").strip()
    if explicit:
        return explicit.rstrip("/")
    host = os.environ.get("WORKCELL_HOST", "").strip() or "127.0.0.1"
    port = os.environ.get("WORKCELL_PORT", "").strip() or "7070"
    return f"http://[{host}]:{port}" if ":" in host and not host.startswith("[") else f"http://{host}:{port}"


def bearer_token() -> str:
    token = os.environ.get("WORKCELL_TOKEN", "").strip()
    if token:
        return token
    return (Path(os.environ.get("WORKCELL_DATA_DIR", ".workcell")) / "token").read_text().strip()


def rest(method: str, path: str, token: str, body: dict | None = None) -> dict:
    """One call of the control plane's REST API; an error answer raises with its message."""
    request = urllib.request.Request(
        control_plane_url() + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        raise SystemExit(f"{method} {path} answered {error.code}: {error.read().decode()}") from None


def open_streams(url: str, token: str):
    """The SDK's Streamable HTTP transport with the bearer header (its 2.x and 1.x forms)."""
    from mcp.client import streamable_http

    headers = {"Authorization": f"Bearer {token}"}
    if hasattr(streamable_http, "streamable_http_client"):
        import httpx2

        return streamable_http.streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=120))
    return streamable_http.streamablehttp_client(url, headers=headers)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def drive(worker: dict, token: str) -> None:
    async with open_streams(worker["mcpUrl"], token) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            print(f"{len(tools)} tools: {', '.join(sorted(tool.name for tool in tools))}")
            print("workspace:\n" + text_of(await session.call_tool("list_directory", {"path": "."})))
            await session.call_tool("write_file", {"path": "NOTES.md", "content": "Written by the Python agent.\n"})
            await session.call_tool("git_add", {"files": ["NOTES.md"]})
            commit = await session.call_tool("git_commit", {"message": "Add notes from the Python agent"})
            # The SDK's 2.x names it structured_content, 1.x structuredContent.
            structured = getattr(commit, "structured_content", None) or getattr(commit, "structuredContent", None) or {}
            print(f"committed {structured['sha'][:12]}")


def main() -> int:
    if len(sys.argv) != 2 or not os.path.isabs(sys.argv[1]):
        print("usage: python3 examples/python_agent.py /abs/path/to/a/git/repo", file=sys.stderr)
        return 2
    token = bearer_token()
    worker = rest("POST", "/v1/workers", token, {"repo": sys.argv[1], "name": "python-example"})
    print(f"spawned {worker['id']} on {worker['branch']}; MCP at {worker['mcpUrl']}")
    try:
        asyncio.run(drive(worker, token))
        diff = rest("GET", f"/v1/workers/{worker['id']}/diff", token)
        files = ", ".join(f"{f['status']} {f['path']} +{f['additions']}/-{f['deletions']}" for f in diff["files"])
        print(f"diff since {diff['baseCommit'][:12]}: {files}")
    finally:
        rest("DELETE", f"/v1/workers/{worker['id']}", token)
        print(f"removed {worker['id']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
