"""A small voicehook-like MCP server written with the official Python SDK,
1.x (FastMCP) or 2.x (MCPServer), whichever this interpreter has.

    python server.py stdio [--banner]
    python server.py http PORT

`--banner` prints a line that is not JSON on standard output first, as
some servers do. Tools: the voicehook functions the proxy judges (join,
say, next, status) and, for the tests, echo (the length of a blob), slow
(progress, then a result), ask (asks the client), and never (never
answers).
"""

import sys

import anyio
from pydantic import BaseModel

try:  # 2.x
    from mcp.server.mcpserver import Context, MCPServer as Server

    V2 = True
except ImportError:  # 1.x
    from mcp.server.fastmcp import Context, FastMCP as Server

    V2 = False

mcp = Server("voicehook")
says = {"n": 0}


@mcp.tool()
def join(call_id: str, label: str) -> dict:
    """Join a voice call."""
    return {"status": "joined", "context": {"lang": "en"}, "role": "participant"}


@mcp.tool()
def say(text: str, call_id: str = "", label: str = "") -> dict:
    """Say something in the call."""
    says["n"] += 1
    return {"say_id": f"s{says['n']}", "say_status": "queued"}


@mcp.tool()
def next(call_id: str = "", label: str = "") -> dict:
    """Wait for what happens next in the call."""
    return {"type": "quiet"}


@mcp.tool()
def status(label: str, emoji: str = "", doing: str = "", call_id: str = "") -> dict:
    """Show a status on the board."""
    return {"ok": True}


@mcp.tool()
def echo(blob: str = "", n: int = 0) -> dict:
    """The length of blob, and n back."""
    return {"length": len(blob), "n": n}


@mcp.tool()
async def slow(steps: int, ctx: Context) -> dict:
    """Report progress `steps` times, then answer."""
    for k in range(steps):
        await ctx.report_progress(k + 1, steps)
        await anyio.sleep(0.05)
    return {"steps": steps}


@mcp.resource("voicehook://rules")
def rules() -> str:
    """The rules of the call."""
    return "Say one short thought at a time."


@mcp.prompt()
def greet(label: str) -> str:
    """How an agent greets the call."""
    return f"Hi, this is {label}."


class Answer(BaseModel):
    ok: bool


@mcp.tool()
async def ask(ctx: Context) -> dict:
    """Ask the client (a request of the server's, or in the stateless
    protocol a result that asks for input), then answer."""
    r = await ctx.elicit("Go on?", Answer)
    return {"action": r.action, "ok": r.data.ok if r.action == "accept" else None}


@mcp.tool()
async def never() -> dict:
    """Never answers."""
    await anyio.sleep(3600)
    return {}


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        if "--banner" in sys.argv:
            print("voicehook-mcp 2.4 starting...", flush=True)
        mcp.run("stdio")
    else:
        # Room for the tests' 5 MB argument (the SDKs refuse 4 MB and up).
        port, body = int(sys.argv[2]), 16 << 20
        if not V2:  # 1.x: host, port and limit are settings
            mcp.settings.host = "127.0.0.1"
            mcp.settings.port = port
            mcp.settings.max_request_body_size = body
            mcp.run("streamable-http")
        else:
            mcp.run("streamable-http", host="127.0.0.1", port=port, max_request_body_size=body)
