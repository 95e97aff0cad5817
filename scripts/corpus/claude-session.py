#!/usr/bin/env python3
"""Write a case of native call logs as Claude Code session transcripts.

    scripts/corpus/claude-session.py corpus/seed-incident corpus/seed-incident-claude
    scripts/corpus/claude-session.py --noise 20 LOG.jsonl OUT.jsonl


Each native log becomes the session file the agent's client would have
written for the same call: chat as user and assistant entries, each voicehook
call as an assistant `tool_use` of an MCP server followed by the user entry
with its `tool_result`, other tools as Bash or Edit calls. The three logs of
the seed incident name the voicehook server three ways (`voicehook`, `vh`,
`plugin:voicehook:voicehook`), so that the reader must recognise it by its
calls. Records of a `subagent` or `background` thread become sidechain
entries of an agent started by a Task call. The case's expected.tsv is
rewritten with the line of the entry each finding points at.

With --noise N, one native log is written as one session with the everyday
work of a coding agent between its records: after every N records, a file
read with its 6 KB of contents, a shell command and progress entries (for
measuring how fast a real session is read).
"""

import json
import pathlib
import sys
import uuid
from datetime import datetime, timedelta, timezone

SERVERS = ["voicehook", "vh", "plugin:voicehook:voicehook"]
NS = uuid.UUID("6f1c2a3e-8d4b-4c5a-9e7f-0a1b2c3d4e5f")


def parse_ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


def fmt_ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


class Session:
    def __init__(self, name, server):
        self.name = name
        self.server = server
        self.sid = str(uuid.uuid5(NS, name))
        self.lines = []
        self.parent = None
        self.n = 0
        self.agents = {}

    def ident(self, what):
        self.n += 1
        return uuid.uuid5(NS, f"{self.name}/{what}/{self.n}")

    def entry(self, kind, ts, message, side=None, **extra):
        u = str(self.ident("entry"))
        e = {
            "type": kind,
            "uuid": u,
            "parentUuid": self.parent,
            "sessionId": self.sid,
            "timestamp": ts,
            "version": "2.1.144",
            "cwd": f"/home/dev/{self.name}",
            "gitBranch": "main",
            "isSidechain": side is not None,
            "userType": "external",
            "message": message,
        }
        if side is not None:
            e["agentId"] = side
        e.update(extra)
        self.parent = u
        self.lines.append(json.dumps(e, ensure_ascii=False, separators=(",", ":")))
        return len(self.lines)

    def assistant(self, ts, content, stop, side=None):
        h = self.ident("msg").hex
        message = {
            "model": "claude-opus-4-6",
            "id": f"msg_01{h[:22]}",
            "type": "message",
            "role": "assistant",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 1200 + self.n, "output_tokens": 40 + self.n % 50},
        }
        return self.entry("assistant", ts, message, side, requestId=f"req_01{h[22:]}")

    def tool(self, sent, done, name, inp, result_text, is_error=False, side=None, use_result=None):
        tid = "toolu_01" + self.ident("tool").hex[:22]
        at = self.assistant(
            sent, [{"type": "tool_use", "id": tid, "name": name, "input": inp}], "tool_use", side
        )
        content = [{"type": "text", "text": result_text}]
        self.entry(
            "user",
            done,
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": tid, "content": content, "is_error": is_error}
                ],
            },
            side,
            toolUseResult=use_result if use_result is not None else content,
        )
        return at


def side_of(s, rec):
    thread = rec.get("thread", "main")
    if thread == "main":
        return None
    if thread not in s.agents:
        # The Task call that started the agent, in the main thread.
        aid = "a" + s.ident("agent").hex[:16]
        s.agents[thread] = aid
        ts = rec.get("ts")
        s.tool(
            ts,
            ts,
            "Task",
            {
                "description": "Open the voice call",
                "prompt": "Create a voicehook call and join it.",
                "subagent_type": "general-purpose",
                "run_in_background": thread == "background",
            },
            "Async agent launched successfully.",
            use_result={"status": "async_launched", "agentId": aid},
        )
    return s.agents[thread]


FILE = "".join(f"    let total_{i} = cart.items.iter().map(|i| i.price * i.qty).sum::<u64>();\n" for i in range(80))


def noise(s, ts):
    s.tool(ts, ts, "Read", {"file_path": f"/home/dev/{s.name}/src/cart.rs"}, FILE)
    s.lines.append(
        json.dumps(
            {"type": "progress", "uuid": str(s.ident("progress")), "parentUuid": s.parent,
             "sessionId": s.sid, "timestamp": ts, "data": {"type": "bash_progress", "output": "Compiling"}},
            separators=(",", ":"),
        )
    )
    s.tool(ts, ts, "Bash", {"command": "cargo test --quiet cart", "description": "Run the cart tests"},
           "test result: ok. 42 passed; 0 failed")


def convert(src, server, every=0):
    s = Session(src.stem, server)
    s.lines.append(
        json.dumps(
            {"type": "summary", "summary": "Voice call with the team", "leafUuid": str(uuid.uuid5(NS, src.stem))},
            separators=(",", ":"),
        )
    )
    where = {}
    prev = None
    for no, raw in enumerate(src.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        rec = json.loads(raw)
        if "meta" in rec:
            continue
        if every and no % every == 0 and "ts" in rec:
            noise(s, rec["ts"])
        ts = rec["ts"]
        sent = prev or fmt_ts(parse_ts(ts) - timedelta(milliseconds=300))
        prev = ts
        side = side_of(s, rec)
        if "chat" in rec:
            if rec["chat"] == "user":
                where[no] = s.entry("user", ts, {"role": "user", "content": rec["text"]}, side)
            else:
                stop = "end_turn" if rec.get("turn_end") else None
                where[no] = s.assistant(ts, [{"type": "text", "text": rec["text"]}], stop, side)
        elif "fn" in rec:
            if "error" in rec:
                text, err = json.dumps(rec["error"], ensure_ascii=False), True
            else:
                text, err = json.dumps(rec.get("result", {}), ensure_ascii=False), False
            name = f"mcp__{server}__{rec['fn']}"
            where[no] = s.tool(sent, ts, name, rec.get("args", {}), text, err, side)
        elif "tool" in rec:
            args = rec.get("args", {})
            if rec["tool"] == "edit_file":
                name, inp = "Edit", {
                    "file_path": f"/home/dev/{s.name}/{args['path']}",
                    "old_string": "## Rules",
                    "new_string": "## Rules\n\n- Questions to the human are the human's.",
                }
            elif rec["tool"] == "shell":
                name, inp = "Bash", {"command": args["command"], "description": "Run a command"}
            else:
                name, inp = rec["tool"], args
            where[no] = s.tool(sent, ts, name, inp, "ok", False, side)
    return s, where


def main():
    if sys.argv[1] == "--noise":
        every, src, out = int(sys.argv[2]), pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
        s, _ = convert(src, SERVERS[0], every)
        out.write_text("\n".join(s.lines) + "\n", encoding="utf-8")
        return
    src_dir, out_dir = map(pathlib.Path, sys.argv[1:3])
    out_dir.mkdir(parents=True, exist_ok=True)
    maps = {}
    for k, src in enumerate(sorted(src_dir.glob("*.jsonl"))):
        s, where = convert(src, SERVERS[k % len(SERVERS)])
        (out_dir / src.name).write_text("\n".join(s.lines) + "\n", encoding="utf-8")
        maps[src.name] = where
    expected = src_dir / "expected.tsv"
    if expected.exists():
        out = [
            f"# {src_dir.name} as Claude Code session transcripts, written by scripts/corpus/claude-session.py.",
            "# Each voicehook call is an MCP tool_use with its tool_result; findings point at the tool_use entry.",
        ]
        for line in expected.read_text(encoding="utf-8").splitlines():
            if line.startswith("#") or not line.strip():
                continue
            f, no, rule, why = line.split("\t", 3)
            out.append(f"{f}\t{maps[f][int(no)]}\t{rule}\t{why}")
        (out_dir / "expected.tsv").write_text("\n".join(out) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
