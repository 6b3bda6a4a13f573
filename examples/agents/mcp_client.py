"""Connect to `mem mcp` as an agent would, with the official MCP client, and use its tools.

    python examples/agents/mcp_client.py --store ~/memory --scope you "what do I drink?"

It lists the tools, remembers one thing (as a candidate), and recalls the query. Written for
the MCP Python SDK 2.x (`pip install 'mcp>=2.3,<3'`, the range mem is tested with): 1.x spells
the result attributes `isError` / `structuredContent`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client


async def main(store: str, scope: str, query: str, mem: str) -> None:
    server = StdioServerParameters(command=mem, args=["mcp", "--store", store, "--scope", scope])
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        print("tools:", ", ".join(t.name for t in tools.tools))
        added = await session.call_tool(
            "remember", {"content": "Prefers answers with examples", "kind": "preference"}
        )
        if added.is_error:  # e.g. already remembered once and then forgotten
            print("remember:", added.content[0].text)
        else:
            print("remembered:", added.structured_content["record"]["id"])
        found = await session.call_tool("recall", {"query": query, "k": 5})
        if found.is_error:
            raise SystemExit(found.content[0].text)
        for hit in found.structured_content["results"]:
            print(f"{hit['score']:.3f}  {hit['id']}  {hit['content'].strip()}")
        print(json.dumps(found.structured_content["warnings"]))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", required=True)
    ap.add_argument("--scope", required=True)
    ap.add_argument("--mem", default="mem", help="the mem executable (default: mem on PATH)")
    ap.add_argument("query")
    a = ap.parse_args()
    exe = a.mem if os.sep in a.mem else shutil.which(a.mem)
    if exe is None or not os.access(exe, os.X_OK):
        sys.stderr.write(
            f"error: the mem executable {a.mem!r} was not found: put mem on PATH "
            "(e.g. .venv/bin after `make dev`) or give it with --mem PATH\n"
        )
        raise SystemExit(2)
    asyncio.run(main(a.store, a.scope, a.query, exe))
