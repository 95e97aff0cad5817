"""An MCP client written with the official Python SDK, 1.x or 2.x (in its
default mode: the stateless 2026-07-28 protocol when the server speaks it,
else initialize), that runs one scenario against a server and prints what
it saw as one JSON object.

    python client.py stdio CMD ARGS...
    python client.py http URL

Environment: STEPS (comma-separated; all when unset).
"""

import json
import os
import sys
from contextlib import asynccontextmanager
from datetime import timedelta

import anyio
import mcp
from mcp import StdioServerParameters

V2 = hasattr(mcp, "Client")
LONG_SAY = " ".join(["word"] * 45)


async def on_elicit(context, params):
    return mcp.types.ElicitResult(action="accept", content={"ok": True})


@asynccontextmanager
async def connect(kind, target):
    """A session-like object with call_tool and list_tools, and its era."""
    if V2:
        server = (
            StdioServerParameters(command=target[0], args=target[1:])
            if kind == "stdio"
            else target[0]
        )
        async with mcp.Client(server, elicitation_callback=on_elicit) as c:
            yield c, c.protocol_version
        return
    from mcp import ClientSession

    if kind == "stdio":
        from mcp.client.stdio import stdio_client

        streams = stdio_client(StdioServerParameters(command=target[0], args=target[1:]))
    else:
        from mcp.client.streamable_http import streamablehttp_client

        streams = streamablehttp_client(target[0])
    async with streams as s:
        async with ClientSession(s[0], s[1], elicitation_callback=on_elicit) as session:
            init = await session.initialize()
            yield session, init.protocolVersion


def timeout(seconds):
    return seconds if V2 else timedelta(seconds=seconds)


def is_error(r):
    return r.is_error if V2 else r.isError


def structured(r):
    s = r.structured_content if V2 else r.structuredContent
    return s if s is not None else json.loads(text(r))


def text(r):
    return "".join(getattr(c, "text", "") for c in r.content)


async def main():
    kind, target = sys.argv[1], sys.argv[2:]
    steps = os.environ.get("STEPS")
    steps = set(steps.split(",")) if steps else None
    want = lambda s: steps is None or s in steps
    out = {"sdk": mcp.__name__, "v2": V2}
    async with connect(kind, target) as (c, era):
        out["era"] = era
        tools = await c.list_tools()
        out["tools"] = sorted(t.name for t in tools.tools)
        j = await c.call_tool("join", {"call_id": "c-1", "label": "Kit"})
        out["join"] = {"error": is_error(j), "structured": structured(j)}
        s = await c.call_tool("say", {"text": "Hi, this is Kit."})
        out["clean_say"] = {"error": is_error(s), "structured": structured(s)}
        d = await c.call_tool("say", {"text": LONG_SAY})
        out["long_say"] = {"error": is_error(d), "text": text(d)}
        if want("more"):
            r = await c.read_resource("voicehook://rules")
            out["resource"] = r.contents[0].text
            p = await c.get_prompt("greet", {"label": "Kit"})
            out["prompt"] = p.messages[0].content.text
        if want("big"):
            b = await c.call_tool("echo", {"blob": "x" * (5 << 20)})
            out["big"] = structured(b)["length"]
        if want("many"):
            got = {}

            async def one(k):
                r = await c.call_tool("echo", {"n": k})
                got[k] = structured(r)["n"]

            async with anyio.create_task_group() as tg:
                for k in range(200):
                    tg.start_soon(one, k)
            out["many"] = sum(1 for k, v in got.items() if k == v)
        if want("progress"):
            seen = []

            async def on_progress(p, total, message):
                seen.append(p)

            r = await c.call_tool("slow", {"steps": 5}, progress_callback=on_progress)
            out["progress"] = {"seen": seen, "result": structured(r)}
        if want("ask"):
            r = await c.call_tool("ask", {})
            out["ask"] = structured(r)
        if want("cancel"):
            # The client gives up on a call (the SDK cancels it), then goes on.
            try:
                await c.call_tool("never", {}, read_timeout_seconds=timeout(0.5))
                out["cancel"] = "answered"
            except Exception as e:  # the SDK's timeout error
                out["cancel"] = type(e).__name__
            r = await c.call_tool("echo", {"n": 7})
            out["after_cancel"] = structured(r)["n"]
        if want("timeout"):
            # The proxy answers a call the server never answers.
            try:
                await c.call_tool("never", {}, read_timeout_seconds=timeout(30))
                out["timeout"] = "answered"
            except Exception as e:
                out["timeout"] = {"type": type(e).__name__, "message": str(e)}
            r = await c.call_tool("echo", {"n": 8})
            out["after_timeout"] = structured(r)["n"]
    print(json.dumps(out), flush=True)


anyio.run(main)
