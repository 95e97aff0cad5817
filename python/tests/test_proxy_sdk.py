"""`callint proxy` between the official MCP Python SDK as client and as
server (mcp_sdk/client.py, mcp_sdk/server.py), a 1.x release (the 2025
protocols, initialize) and a 2.x one (the stateless 2026-07-28 protocol,
falling back to initialize before a 1.x server), through each transport:
the server as the proxy's child on stdio, the proxy as a streamable-HTTP
front, and the proxy as a stdio command in front of an HTTP server.

Each SDK lives in its own virtual environment, made by
scripts/test-python.sh (MCP_SDK1_PYTHON, MCP_SDK2_PYTHON: their
interpreters). Servers listen on 127.0.0.1 only.
"""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from typing import Dict, Iterator, List

import pytest

HERE = pathlib.Path(__file__).resolve().parent / "mcp_sdk"
CLIENT = str(HERE / "client.py")
SERVER = str(HERE / "server.py")
MODERN = "2026-07-28"


def sdk(version: str) -> str:
    path = os.environ.get(f"MCP_SDK{version}_PYTHON")
    if not path or not os.path.exists(path):
        pytest.fail(
            f"MCP_SDK{version}_PYTHON names no interpreter with the MCP SDK {version}.x: "
            "scripts/test-python.sh makes one"
        )
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, what: str) -> None:
    start = time.monotonic()
    while time.monotonic() - start < 60:
        if proc.poll() is not None:
            raise AssertionError(f"{what} ended ({proc.returncode}): {proc.stderr.read() if proc.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"{what} did not listen on {port}")


@contextmanager
def started(cmd: List[str], port: int, what: str) -> Iterator[subprocess.Popen]:
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_port(port, proc, what)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def http_server(python: str) -> Iterator[str]:
    port = free_port()
    with started([python, SERVER, "http", str(port)], port, "the SDK's HTTP server"):
        yield f"http://127.0.0.1:{port}/mcp"


def run_client(python: str, args: List[str], steps: str) -> Dict:
    env = dict(os.environ, STEPS=steps)
    p = subprocess.run([python, CLIENT, *args], capture_output=True, text=True, env=env, timeout=240)
    assert p.returncode == 0, f"the SDK client failed:\n{p.stderr[-4000:]}"
    return {**json.loads(p.stdout.strip().splitlines()[-1]), "stderr": p.stderr}


def proxy_args(record: str) -> List[str]:
    return ["proxy", "--no-config", "--upstream-timeout", "3", "--record", record]


def through(transport: str, binary: str, client: str, server: str, tmp: pathlib.Path, steps: str):
    """Run the client's scenario through the proxy; what it saw, and the
    recordings."""
    rec = tmp / "rec"
    if transport == "stdio":
        args = ["stdio", binary, *proxy_args(str(rec / "stdio.jsonl")), "--", sdk(server), SERVER, "stdio", "--banner"]
        rec.mkdir()
        return run_client(sdk(client), args, steps), sorted(rec.glob("*.jsonl"))
    with http_server(sdk(server)) as url:
        if transport == "stdio-front":
            args = ["stdio", binary, *proxy_args(str(rec / "front.jsonl")), "--upstream", url, "--stdio"]
            rec.mkdir()
            return run_client(sdk(client), args, steps), sorted(rec.glob("*.jsonl"))
        port = free_port()
        # A folder: one recording per session.
        cmd = [binary, *proxy_args(f"{rec}/"), "--upstream", url, "--listen", f"127.0.0.1:{port}"]
        with started(cmd, port, "callint proxy"):
            out = run_client(sdk(client), ["http", f"http://127.0.0.1:{port}/mcp"], steps)
        return out, sorted(rec.glob("*.jsonl"))


def denial_rules(text: str) -> set:
    return {l[2:].split(" ")[0] for l in text.splitlines() if l.startswith("- ")}


def denied_in(recording: pathlib.Path) -> Dict[str, set]:
    """The proxy's denials in a recording: the rules named, by request id."""
    out = {}
    for line in recording.read_text().splitlines():
        v = json.loads(line)
        r = v["message"].get("result") or {}
        if v.get("by") == "callint" and r.get("isError"):
            out[json.dumps(v["message"]["id"])] = denial_rules(r["content"][0]["text"])
    return out


def judging_pending(binary: str) -> set:
    """The rules that can judge a call before it is made (the proxy's)."""
    p = subprocess.run([binary, "rules", "--format", "json"], capture_output=True, text=True, check=True)
    before = ("the record alone", "the record and what came before it")
    return {r["name"] for r in json.loads(p.stdout) if r["judges"] in before}


def checked(binary: str, recording: pathlib.Path) -> Dict[str, set]:
    """What `callint check` finds on a recording with the rules the proxy
    judges by, warnings and errors, by the id of the request each is on."""
    rules = judging_pending(binary)
    p = subprocess.run(
        [binary, "check", "--no-config", "--no-cache", "--format", "json", str(recording)],
        capture_output=True,
        text=True,
    )
    assert p.returncode in (0, 1), p.stderr
    lines = recording.read_text().splitlines()
    out: Dict[str, set] = {}
    for d in json.loads(p.stdout)["diagnostics"]:
        if d["severity"] == "info" or d.get("line") is None or d["rule"] not in rules:
            continue
        m = json.loads(lines[d["line"] - 1])["message"]
        if m.get("method") == "tools/call":
            out.setdefault(json.dumps(m["id"]), set()).add(d["rule"])
    return out


PAIRS = [("1", "1"), ("2", "2"), ("2", "1"), ("1", "2")]


@pytest.mark.parametrize("transport", ["stdio", "http", "stdio-front"])
@pytest.mark.parametrize("client,server", PAIRS, ids=[f"client{c}-server{s}" for c, s in PAIRS])
def test_the_sdks_through_the_proxy(transport, client, server, binary, tmp_path):
    # The whole scenario in every pair, across SDK versions too: the
    # connection, the calls, a 5 MB argument, 200 calls at once, progress, a
    # request of the server's, a cancelled call and an upstream that never
    # answers.
    steps = "more,big,many,progress,ask,cancel,timeout"
    modern = client == server == "2"
    if modern:
        # The 2.x server's ctx.elicit sends a request of its own, which the
        # stateless protocol does not have (the SDK refuses it without a
        # proxy too): only the 2025 protocols ask.
        steps = steps.replace("ask,", "")
    out, recordings = through(transport, binary, client, server, tmp_path, steps)
    # The era the SDKs settle on, through the proxy as without it.
    if client == "2" and server == "2":
        assert out["era"] == MODERN
    else:
        assert out["era"].startswith("2025-"), out["era"]
    assert {"join", "say", "next", "status"} <= set(out["tools"])
    assert out["join"]["error"] is False and out["join"]["structured"]["status"] == "joined"
    assert out["clean_say"] == {"error": False, "structured": {"say_id": "s1", "say_status": "queued"}}
    # The denial, accepted by the SDK as a tool result, names the rule.
    assert out["long_say"]["error"] is True
    assert out["long_say"]["text"].startswith("callint denied this say")
    assert denial_rules(out["long_say"]["text"]) == {"long-say"}
    # A resource and a prompt (in 2026-07-28 over HTTP, with Mcp-Name).
    assert out["resource"] == "Say one short thought at a time."
    assert out["prompt"] == "Hi, this is Kit."
    assert out["progress"] == {"seen": [1.0, 2.0, 3.0, 4.0, 5.0], "result": {"steps": 5}}
    # The server asks the client (its own request, or in 2026-07-28 a result
    # asking for input and the call sent again), and gets the answer.
    if not modern:
        assert out["ask"] == {"action": "accept", "ok": True}
    assert out["big"] == 5 << 20
    assert out["many"] == 200
    assert out["cancel"] != "answered" and out["after_cancel"] == 7
    assert out["timeout"] != "answered", out
    assert "upstream-timeout" in out["timeout"]["message"], out["timeout"]
    assert out["after_timeout"] == 8
    if transport == "stdio":
        # The server's banner went to standard error, once warned about.
        assert out["stderr"].splitlines().count("voicehook-mcp 2.4 starting...") == 1, out["stderr"]
        assert out["stderr"].count("not JSON") == 1, out["stderr"]
    # Every recording: `check` finds exactly what the proxy denied live.
    assert recordings
    live: Dict[str, set] = {}
    for r in recordings:
        denied = denied_in(r)
        assert checked(binary, r) == denied, r.read_text()[-3000:]
        live.update(denied)
    assert list(live.values()) == [{"long-say"}]
