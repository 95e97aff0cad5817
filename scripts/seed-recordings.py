#!/usr/bin/env python3
"""Write the seed incident as MCP clients and recording tools record it.

Reads the MCP traces of corpus/seed-incident-mcp/ (times of the calls whose
trace has none are taken from the native logs of corpus/seed-incident/,
whose function records are in the same order as the trace's answers) and
writes, for the same three agents:

  corpus/seed-incident-desktop/     Claude Desktop MCP logs: mcp.log (Promo,
                                    with a second server's lines mixed in,
                                    the older `[level] [server]` order),
                                    mcp-server-voicehook.log (Claude) and
                                    mcp-server-vh.log (opencode, a server
                                    named `vh`, told by its calls)
  corpus/seed-incident-mcp-debug/   mcp-debug --record files
  corpus/seed-incident-inspector/   MCP Inspector history (JSON)
  corpus/seed-incident-tee/         <agent>.in.jsonl / <agent>.out.jsonl
  corpus/seed-incident-proxy/       {timestamp, direction, message} lines

Run from the repository's root: python3 scripts/seed-recordings.py
The expected.tsv of each case is written by hand (see the cases).
"""

import datetime
import json
import os

AGENTS = ["claude", "opencode", "promo"]
SRC = "corpus/seed-incident-mcp"
NATIVE = "corpus/seed-incident"


def compact(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def parse_ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))


def iso(t):
    return t.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + (
        "%03dZ" % (t.microsecond // 1000)
    )


def go_time(t):
    """Go's RFC 3339 with nanoseconds, in a +02:00 zone, as mcp-debug writes it."""
    local = t.astimezone(datetime.timezone(datetime.timedelta(hours=2)))
    frac = ("%06d" % local.microsecond) + "417"
    return local.strftime("%Y-%m-%dT%H:%M:%S.") + frac.rstrip("0") + "+02:00"


def messages(agent):
    """[(time, 'send'|'recv', message)] of an agent's trace, every line timed."""
    out = []
    with open(os.path.join(SRC, agent + ".jsonl"), encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            o = json.loads(line)
            if "message" in o and "jsonrpc" not in o:
                out.append([o.get("ts"), o["dir"], o["message"]])
            else:
                d = "send" if "method" in o else "recv"
                out.append([None, d, o])
    # Times of the answers of tool calls from the native log, where missing.
    with open(os.path.join(NATIVE, agent + ".jsonl"), encoding="utf-8") as f:
        native = [json.loads(l) for l in f if l.strip()]
    fn_times = [r["ts"] for r in native if "fn" in r]
    calls = {}
    k = 0
    for m in out:
        msg = m[2]
        if msg.get("method") == "tools/call":
            calls[compact(msg["id"])] = True
        elif "id" in msg and calls.pop(compact(msg.get("id")), None):
            if m[0] is None:
                m[0] = fn_times[k]
            k += 1
    # Every other line: just after the line before it (requests shortly
    # before their answers).
    first = next(parse_ts(m[0]) for m in out if m[0])
    last = first - datetime.timedelta(seconds=2)
    for i, m in enumerate(out):
        if m[0] is None:
            nxt = next((parse_ts(n[0]) for n in out[i + 1 :] if n[0]), None)
            t = last + datetime.timedelta(milliseconds=20)
            if nxt is not None and t >= nxt:
                t = last + (nxt - last) / 2
            m[0] = iso(t)
        last = parse_ts(m[0])
    return [(parse_ts(t), d, msg) for t, d, msg in out]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def desktop(agent, server, old_order, extra_server):
    msgs = messages(agent)
    lines = []
    meta = "" if old_order else " { metadata: undefined }"

    def pre(t, srv, level="info"):
        if old_order:
            return "%s [%s] [%s] " % (iso(t), level, srv)
        return "%s [%s] [%s] " % (iso(t), srv, level)

    t0 = msgs[0][0] - datetime.timedelta(milliseconds=400)
    lines.append(pre(t0, server) + "Initializing server..." + meta)
    if not old_order:
        lines.append(
            pre(t0, server)
            + "Using MCP server command: /usr/local/bin/voicehook-mcp with args and path: {"
        )
        lines += [
            "  metadata: {",
            "    args: [ '--stdio', [length]: 1 ],",
            "    paths: [ '/usr/local/bin', '/usr/bin', '/bin', [length]: 3 ]",
            "  }",
            "} %o",
        ]
    lines.append(pre(t0, server) + "Server started and connected successfully" + meta)
    lines.append("voicehook-mcp 2.4.0: serving on stdio")
    if extra_server:
        e0 = t0 + datetime.timedelta(milliseconds=50)
        lines.append(pre(e0, "filesystem") + "Initializing server..." + meta)
        lines.append(
            pre(e0, "filesystem")
            + "Message from client: "
            + compact({"method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "/Users/oliver/notes/release.md"}}, "jsonrpc": "2.0", "id": 1})
            + meta
        )
        lines.append("Secure MCP Filesystem Server running on stdio")
    for i, (t, d, msg) in enumerate(msgs):
        side = "client" if d == "send" else "server"
        lines.append(pre(t, server) + "Message from %s: %s" % (side, compact(msg)) + meta)
        if extra_server and i == 6:
            lines.append(
                pre(t + datetime.timedelta(milliseconds=3), "filesystem")
                + "Message from server: "
                + compact({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "# Release\n- iOS note"}]}})
                + meta
            )
    tn = msgs[-1][0] + datetime.timedelta(seconds=1)
    lines.append(pre(tn, server) + "Client transport closed" + meta)
    return "\n".join(lines) + "\n"


def mcp_debug(agent):
    msgs = messages(agent)
    start = msgs[0][0] - datetime.timedelta(seconds=1)
    header = json.dumps(
        {"start_time": go_time(start), "server_info": "Dynamic MCP Proxy v1.0.0", "messages": []},
        indent=2,
    )
    lines = ["# MCP Recording Session", "# Started: " + go_time(start).split(".")[0] + "+02:00", header]
    pending = {}
    for t, d, msg in msgs:
        if msg.get("method") == "tools/call":
            name = "voicehook_" + msg["params"]["name"]
            pending[compact(msg["id"])] = name
            params = {"name": name, "arguments": msg["params"].get("arguments", {})}
            rec = {"method": "tools/call", "params": params}
            direction = "request"
        elif "id" in msg and compact(msg["id"]) in pending and "method" not in msg:
            name = pending.pop(compact(msg["id"]))
            r = msg["result"]
            if r.get("isError"):
                rec = {"content": r["content"], "isError": True}
            else:
                # The proxy passes the text of the answer on.
                if "structuredContent" in r:
                    text = compact(r["structuredContent"])
                else:
                    text = "\n".join(c["text"] for c in r.get("content", []))
                rec = {"content": [{"type": "text", "text": text}]}
            direction = "response"
        else:
            continue  # the proxy records tool calls only
        lines.append(
            compact(
                {
                    "timestamp": go_time(t),
                    "direction": direction,
                    "message_type": "tool_call",
                    "tool_name": name,
                    "server_name": "voicehook",
                    "message": rec,
                }
            )
        )
    return "\n".join(lines) + "\n"


def inspector(agent):
    msgs = messages(agent)
    history = []
    by_id = {}
    for _, d, msg in msgs:
        if "method" in msg:
            if "id" not in msg:
                continue  # notifications are not in the history
            entry = {"request": compact(msg)}
            by_id[compact(msg["id"])] = entry
            history.append(entry)
        elif "id" in msg and compact(msg["id"]) in by_id:
            by_id.pop(compact(msg["id"]))["response"] = compact(msg)
    return json.dumps(history, indent=2, ensure_ascii=False) + "\n"


def tee(agent):
    msgs = messages(agent)
    ins = [compact(m) for _, d, m in msgs if d == "send"]
    outs = [compact(m) for _, d, m in msgs if d == "recv"]
    return "\n".join(ins) + "\n", "\n".join(outs) + "\n"


def proxy(agent, style):
    msgs = messages(agent)
    lines = []
    for t, d, msg in msgs:
        direction = {
            ("rr", "send"): "request",
            ("rr", "recv"): "response",
            ("arrow", "send"): "client->server",
            ("arrow", "recv"): "server->client",
        }[(style, d)]
        lines.append(compact({"timestamp": iso(t), "direction": direction, "message": msg}))
    return "\n".join(lines) + "\n"


def main():
    write("corpus/seed-incident-desktop/mcp.log", desktop("promo", "voicehook", True, True))
    write(
        "corpus/seed-incident-desktop/mcp-server-voicehook.log",
        desktop("claude", "voicehook", False, False),
    )
    write("corpus/seed-incident-desktop/mcp-server-vh.log", desktop("opencode", "vh", False, False))
    for a in AGENTS:
        write("corpus/seed-incident-mcp-debug/%s.jsonl" % a, mcp_debug(a))
        write("corpus/seed-incident-inspector/%s.json" % a, inspector(a))
        i, o = tee(a)
        write("corpus/seed-incident-tee/%s.in.jsonl" % a, i)
        write("corpus/seed-incident-tee/%s.out.jsonl" % a, o)
        write(
            "corpus/seed-incident-proxy/%s.jsonl" % a,
            proxy(a, "arrow" if a == "claude" else "rr"),
        )


if __name__ == "__main__":
    main()
