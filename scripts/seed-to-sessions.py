#!/usr/bin/env python3
"""Write the seed incident (corpus/seed-incident/*.jsonl, one native log per
agent) as the session files two agent clients keep:

- corpus/seed-incident-codex/<agent>.jsonl: a Codex CLI rollout
  (session_meta, turn_context, response_item message / function_call /
  function_call_output / custom_tool_call, event_msg user_message /
  agent_message / mcp_tool_call_end);
- corpus/seed-incident-opencode/<agent>.json: the JSON `opencode export`
  prints (the session's info, then each message with its parts);
- corpus/seed-incident-gemini/<agent>.jsonl: Gemini CLI's session
  recording (the metadata line, then one message a line: `user`, `gemini`
  with its text or its `toolCalls`, each followed by the `$set` of
  `lastUpdated` the client writes).

Each voicehook call becomes the client's MCP tool call of the same
function with the same arguments and answer; the time a native record
carries is when its answer arrived, so that is when the tool call ends
here. Other tools become the client's own: a file edit is Codex's
`apply_patch`, opencode's `edit` and Gemini CLI's `replace`, a shell
command `shell`, `bash` and `run_shell_command`.

Run from the repository's root: python3 scripts/seed-to-sessions.py
"""

import json
import os
from datetime import datetime, timedelta, timezone

SRC = "corpus/seed-incident"
AGENTS = ["claude", "opencode", "promo"]
# The name each agent's user gave the voicehook MCP server: the readers
# tell it by its calls, whatever it is called.
SERVER = {"claude": "voicehook", "opencode": "vh", "promo": "voicehook"}


def parse_ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


def fmt_ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def ms(t):
    return int(t.timestamp() * 1000)


def dumps(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def records(agent):
    with open(os.path.join(SRC, agent + ".jsonl"), encoding="utf-8") as f:
        rows = [json.loads(l) for l in f if l.strip()]
    return [r for r in rows if "meta" not in r]


def call_times(recs):
    """When each call was sent: `next` right after the agent's previous
    record, everything else a moment before its answer."""
    out = []
    prev = None
    for r in recs:
        end = parse_ts(r["ts"])
        if prev is None:
            start = end - timedelta(milliseconds=300)
        elif r.get("fn") == "next":
            start = min(prev + timedelta(milliseconds=50), end)
        else:
            start = max(min(prev + timedelta(milliseconds=10), end), end - timedelta(milliseconds=300))
        out.append((start, end))
        prev = end
    return out


def patch_for(path):
    return (
        "*** Begin Patch\n*** Update File: %s\n@@\n+## Rules for calls with several agents\n*** End Patch\n"
        % path
    )


def codex(agent):
    recs = records(agent)
    server = SERVER[agent]
    lines = []

    def line(t, ty, payload):
        lines.append(dumps({"timestamp": fmt_ts(t), "type": ty, "payload": payload}))

    first = parse_ts(recs[0]["ts"]) - timedelta(seconds=1)
    line(
        first,
        "session_meta",
        {
            "id": "0199c7f3-%s-7a2e-9c41-5e0d1b2a3c4d" % {"claude": "c1a0", "opencode": "0c0d", "promo": "90a0"}[agent],
            "timestamp": fmt_ts(first),
            "cwd": "/home/oliver/work/release-2.4",
            "originator": "codex_cli_rs",
            "cli_version": "0.46.0",
            "instructions": None,
            "source": "cli",
            "model_provider": "openai",
        },
    )
    for n, (r, (start, end)) in enumerate(zip(recs, call_times(recs))):
        cid = "call_%s%03d" % (agent[:2], n)
        if r.get("chat") == "user":
            line(end, "turn_context", {
                "cwd": "/home/oliver/work/release-2.4",
                "approval_policy": "on-request",
                "sandbox_policy": {"mode": "workspace-write"},
                "model": "gpt-5-codex",
                "summary": "auto",
            })
            line(end, "response_item", {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": r["text"]}],
            })
            line(end, "event_msg", {"type": "user_message", "message": r["text"], "images": []})
        elif r.get("chat") == "assistant":
            line(end, "response_item", {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": r["text"]}],
            })
            line(end, "event_msg", {"type": "agent_message", "message": r["text"]})
        elif "fn" in r:
            args = r.get("args", {})
            line(start, "response_item", {
                "type": "function_call",
                "name": "mcp__%s__%s" % (server, r["fn"]),
                "arguments": dumps(args),
                "call_id": cid,
            })
            took = end - start
            duration = {"secs": took.seconds, "nanos": took.microseconds * 1000}
            if "error" in r:
                text = r["error"]["message"]
                result = {"Ok": {"content": [{"type": "text", "text": text}], "isError": True}}
                output = dumps([{"type": "text", "text": text}])
            elif "result" in r:
                text = dumps(r["result"])
                result = {"Ok": {"content": [{"type": "text", "text": text}], "isError": False}}
                output = dumps([{"type": "text", "text": text}])
            else:
                continue
            line(end, "event_msg", {
                "type": "mcp_tool_call_end",
                "call_id": cid,
                "invocation": {"server": server, "tool": r["fn"], "arguments": args},
                "duration": duration,
                "result": result,
            })
            line(end + timedelta(milliseconds=1), "response_item", {
                "type": "function_call_output",
                "call_id": cid,
                "output": output,
            })
        elif r.get("tool") == "edit_file":
            line(end, "response_item", {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": cid,
                "name": "apply_patch",
                "input": patch_for(r["args"]["path"]),
            })
            line(end, "response_item", {
                "type": "custom_tool_call_output",
                "call_id": cid,
                "output": dumps({"output": "Success. Updated the following files:\nM %s\n" % r["args"]["path"], "metadata": {"exit_code": 0}}),
            })
        elif r.get("tool") == "shell":
            line(start, "response_item", {
                "type": "function_call",
                "name": "shell",
                "arguments": dumps({"command": ["bash", "-lc", r["args"]["command"]]}),
                "call_id": cid,
            })
            line(end, "response_item", {
                "type": "function_call_output",
                "call_id": cid,
                "output": dumps({"output": "", "metadata": {"exit_code": 0, "duration_seconds": 0.4}}),
            })
        else:
            raise SystemExit("no Codex shape for %r" % r)
    return "\n".join(lines) + "\n"


def opencode(agent):
    recs = records(agent)
    server = "voicehook"
    sid = "ses_seed%s" % agent
    created = parse_ts(recs[0]["ts"]) - timedelta(seconds=2)
    messages = []
    counter = [0]

    def new_id(prefix):
        counter[0] += 1
        return "%s_%04d%s" % (prefix, counter[0], agent)

    user_id = None
    for r, (start, end) in zip(recs, call_times(recs)):
        if r.get("chat") == "user":
            user_id = new_id("msg")
            messages.append({
                "info": {
                    "id": user_id,
                    "sessionID": sid,
                    "role": "user",
                    "time": {"created": ms(end)},
                    "agent": "build",
                    "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"},
                },
                "parts": [{
                    "id": new_id("prt"),
                    "sessionID": sid,
                    "messageID": user_id,
                    "type": "text",
                    "text": r["text"],
                }],
            })
            continue
        # Each model step (a tool call, or the text it ends with) is an
        # assistant message of its own, as opencode keeps them.
        mid = new_id("msg")
        current = {
            "info": {
                "id": mid,
                "sessionID": sid,
                "role": "assistant",
                "time": {"created": ms(start)},
                "parentID": user_id,
                "modelID": "claude-sonnet-4-5",
                "providerID": "anthropic",
                "mode": "build",
                "agent": "build",
                "path": {"cwd": "/home/oliver/work/release-2.4", "root": "/home/oliver/work/release-2.4"},
                "cost": 0,
                "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                "finish": "stop" if r.get("chat") == "assistant" else "tool-calls",
            },
            "parts": [{"id": new_id("prt"), "sessionID": sid, "messageID": mid, "type": "step-start"}],
        }
        messages.append(current)
        mid = current["info"]["id"]
        current["info"]["time"]["completed"] = ms(end)
        base = {"id": new_id("prt"), "sessionID": sid, "messageID": mid}
        if r.get("chat") == "assistant":
            part = dict(base, type="text", text=r["text"], time={"start": ms(start), "end": ms(end)})
        else:
            if "fn" in r:
                name = "%s_%s" % (server, r["fn"])
                inp = r.get("args", {})
                if "error" in r:
                    state = {"status": "error", "input": inp, "error": r["error"]["message"]}
                else:
                    state = {
                        "status": "completed",
                        "input": inp,
                        "output": dumps(r.get("result", {})),
                        "title": "",
                        "metadata": {},
                    }
            elif r.get("tool") == "edit_file":
                name = "edit"
                path = "/home/oliver/work/release-2.4/" + r["args"]["path"]
                inp = {"filePath": path, "oldString": "# Voicehook", "newString": "# Voicehook\n\n## Rules for calls with several agents"}
                state = {"status": "completed", "input": inp, "output": "", "title": r["args"]["path"], "metadata": {}}
            elif r.get("tool") == "shell":
                name = "bash"
                inp = {"command": r["args"]["command"], "description": "Read the bridge logs"}
                state = {"status": "completed", "input": inp, "output": "", "title": r["args"]["command"], "metadata": {}}
            else:
                raise SystemExit("no opencode shape for %r" % r)
            state["time"] = {"start": ms(start), "end": ms(end)}
            part = dict(base, type="tool", callID="toolu_%s" % base["id"][4:], tool=name, state=state)
        current["parts"].append(part)
    for m in messages:
        if m["info"]["role"] == "assistant":
            m["parts"].append({
                "id": new_id("prt"),
                "sessionID": sid,
                "messageID": m["info"]["id"],
                "type": "step-finish",
                "reason": m["info"]["finish"],
                "cost": 0,
                "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            })
    last = parse_ts(recs[-1]["ts"])
    export = {
        "info": {
            "id": sid,
            "version": "0.15.8",
            "projectID": "d3c0ffee",
            "directory": "/home/oliver/work/release-2.4",
            "title": "Multi-agent rules test",
            "time": {"created": ms(created), "updated": ms(last)},
        },
        "messages": messages,
    }
    return json.dumps(export, ensure_ascii=False, indent=2) + "\n"


def gemini(agent):
    """As Gemini CLI's chat recording service writes a session
    (packages/core/src/services/chatRecordingService.ts): an MCP tool is
    `mcp_<server>_<tool>`, its result the `functionResponse` whose `output`
    holds the server's text inside `<untrusted_context>` markers, a refusal
    the `error` status with the client's "reported tool error" text."""
    recs = records(agent)
    server = SERVER[agent]
    lines = []
    first = parse_ts(recs[0]["ts"]) - timedelta(seconds=1)
    session = "5f0e7c1a-%s-4b2e-9c41-5e0d1b2a3c4d" % {"claude": "c1a0", "opencode": "0c0d", "promo": "90a0"}[agent]
    lines.append(dumps({
        "sessionId": session,
        "projectHash": "9c4b2f0e1d3a5b7c9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d",
        "startTime": fmt_ts(first),
        "lastUpdated": fmt_ts(first),
        "kind": "main",
    }))

    def message(t, m):
        m["id"] = "7b3e%04d-%s-4000-8000-000000000000" % (len(lines), agent[:2])
        m["timestamp"] = fmt_ts(t)
        lines.append(dumps(m))
        lines.append(dumps({"$set": {"lastUpdated": fmt_ts(t)}}))

    def tool_call(name, args, start, end, status, output, display, n):
        cid = "%s-%d-%04x" % (name, ms(start), n)
        message(start, {
            "type": "gemini",
            "content": "",
            "toolCalls": [{
                "id": cid,
                "name": name,
                "args": args,
                "result": [{"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}],
                "status": status,
                "timestamp": fmt_ts(end),
                "resultDisplay": display,
            }],
            "thoughts": [],
            "model": "gemini-2.5-pro",
        })

    for n, (r, (start, end)) in enumerate(zip(recs, call_times(recs))):
        if r.get("chat") == "user":
            message(end, {"type": "user", "content": [{"text": r["text"]}]})
        elif r.get("chat") == "assistant":
            message(end, {"type": "gemini", "content": r["text"], "thoughts": [], "model": "gemini-2.5-pro"})
        elif "fn" in r:
            args = r.get("args", {})
            name = "mcp_%s_%s" % (server, r["fn"])
            if "error" in r:
                text = r["error"]["message"]
                raw = [{"functionResponse": {"name": r["fn"], "response": {"content": [{"type": "text", "text": text}], "isError": True}}}]
                output = "MCP tool '%s' reported tool error for function call: %s with response: %s" % (
                    r["fn"], dumps({"name": r["fn"], "args": args}), dumps(raw))
                tool_call(name, args, start, end, "error", output, "Error: MCP tool '%s' reported an error." % r["fn"], n)
            elif "result" in r:
                text = dumps(r["result"])
                output = "<untrusted_context>\n%s\n</untrusted_context>" % text
                tool_call(name, args, start, end, "success", output, text, n)
        elif r.get("tool") == "edit_file":
            path = r["args"]["path"]
            tool_call("replace", {"file_path": path, "old_string": "", "new_string": "## Rules for calls with several agents\n"},
                      start, end, "success", "Successfully modified file: %s (1 replacements)." % path, "", n)
        elif r.get("tool") == "shell":
            tool_call("run_shell_command", {"command": r["args"]["command"]}, start, end, "success",
                      "Output: (empty)\nExit Code: 0", "", n)
        else:
            raise SystemExit("no Gemini CLI shape for %r" % r)
    return "\n".join(lines) + "\n"


def main():
    for out, write, ext in [
        ("corpus/seed-incident-codex", codex, "jsonl"),
        ("corpus/seed-incident-opencode", opencode, "json"),
        ("corpus/seed-incident-gemini", gemini, "jsonl"),
    ]:
        os.makedirs(out, exist_ok=True)
        for agent in AGENTS:
            with open(os.path.join(out, "%s.%s" % (agent, ext)), "w", encoding="utf-8") as f:
                f.write(write(agent))


if __name__ == "__main__":
    main()
