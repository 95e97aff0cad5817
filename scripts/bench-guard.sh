#!/usr/bin/env bash
# Latency of `callint guard` as Claude Code runs it: one process per pending
# call, the hook input on standard input, on a session of about 10 MB.
# Prints p50, p99 and the slowest of RUNS invocations of the release binary
# (wall clock, process start to exit), for two sessions:
#
#   one-call   the generated call of examples/genlog.rs written as a Claude
#              Code session by scripts/corpus/claude-session.py, with a
#              coding agent's work after every 10th record: one call whose
#              join is on the first lines, so the guard reads the whole file
#              (the worst case);
#   late-call  the same session followed by the seed incident's opencode
#              session: a long working session, then a call, so the guard
#              reads the call only.
#
# The guard keeps what it read of each session (its cache; here a folder of
# its own, emptied first) and reads only what the transcript grew by since.
# Each session is measured three ways:
#
#   warm       the transcript unchanged between runs: the kept state is
#              loaded, nothing new is parsed;
#   grows      four entries (a shell command with 4 KB of output, a `say`,
#              and their results) appended to the transcript before each
#              run, as a session grows between an agent's calls: the state
#              is loaded, the lines written since it parsed, and the state
#              written again once they add up to 256 KiB (every 60 runs or
#              so);
#   no-cache   `--no-cache`: the call read and parsed whole on every run, as
#              on the first call of a session.
#
# Wall clock is what the agent waits; on a machine busy with other work it
# includes waiting for a core, so the CPU time of each run (user + system)
# is printed beside it. At the end the grown transcripts are judged with
# and without the cache, which must decide alike.
#
# The pending call is a `say` ("Got it.", which the guard denies: the whole
# path, reason and output included, is measured).
#
# With CLIENT codex, the same two sessions are written as Codex rollout
# files (a `session_meta` line, then each tool call, its output and the
# assistant's text; the late call is the seed incident's Codex rollout), the
# pending say is handed to `callint guard --client codex` in Codex's hook
# input, and each is measured the same three ways (the lines appended as
# Codex writes them: the shell command and its output, then the say, its
# `mcp_tool_call_end` and its output). With gemini, the sessions are
# written as Gemini CLI records them (a metadata line, then each model
# message with its tool calls and their results, and the `$set` line after
# it; the late call is the seed incident's Gemini CLI session), the say is
# handed over in Gemini CLI's `BeforeTool` input, and each is measured the
# same three ways (the shell command's message and the say's appended).
# With cursor or opencode, the call alone is judged (their hook inputs name
# no session callint reads), with nothing to keep.
# With HOOK=after (claude-code, codex, gemini), the hook after the call is
# measured instead: `callint guard feedback` handed the say as done, with
# its answer (PostToolUse, AfterTool), the same sessions and the same three
# ways; it reads a session from its start, every line, and tells what the
# rules that need what follows a line find ("told") or nothing ("quiet").
# Usage: [HOOK=after] scripts/bench-guard.sh [TURNS] [RUNS] [CLIENT]
#   (default 1200 turns: ~10 MB; 200 runs; claude-code)
# With BIN_DIR set, its callint and examples/genlog are measured instead of
# a fresh release build (to compare two builds in one run).
set -euo pipefail
cd "$(dirname "$0")/.."
turns=${1:-1200}
runs=${2:-200}
client=${3:-claude-code}
dir=target/bench-guard
mkdir -p "$dir"
if [ -z "${BIN_DIR:-}" ]; then
    cargo build --release --locked --quiet --bin callint --example genlog
fi
bin=${BIN_DIR:-target/release}
"$bin/examples/genlog" "$turns" "$dir/native.jsonl"
python3 scripts/corpus/claude-session.py --noise 10 "$dir/native.jsonl" "$dir/one-call.jsonl"
cat "$dir/one-call.jsonl" corpus/seed-incident-claude/opencode.jsonl > "$dir/late-call.jsonl"
rm -rf "$dir/cache"

if [ "$client" != claude-code ] && [ "$client" != codex ] && [ "$client" != gemini ]; then
python3 - "$bin/callint" "$dir" "$runs" "$client" <<'EOF'
import json, os, resource, subprocess, sys, time

callint, d, runs, client = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
say = {"text": "Got it."}
if client == "gemini":
    hook = {"session_id": "bench", "cwd": d, "hook_event_name": "BeforeTool", "tool_name": "mcp_voicehook_say", "tool_input": say,
            "mcp_context": {"server_name": "voicehook", "tool_name": "say"}}
    what = "the call alone"
elif client == "cursor":
    hook = {"conversation_id": "bench", "hook_event_name": "beforeMCPExecution", "workspace_roots": [d],
            "tool_name": "MCP:voicehook:say", "tool_input": say}
    what = "the call alone"
elif client == "opencode":
    hook = {"hook_event_name": "tool.execute.before", "tool": "voicehook_say", "session_id": "bench", "call_id": "c", "tool_input": say, "cwd": d}
    what = "the call alone"
else:
    sys.exit(f"no such client: {client}")
body = json.dumps(hook).encode()
times, cpu = [], []
for i in range(runs + 3):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    s = time.perf_counter()
    p = subprocess.run([callint, "guard", "--client", client, "--no-cache"], input=body, capture_output=True)
    t = (time.perf_counter() - s) * 1000
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if i == 0:
        first = "deny" if b"deny" in p.stdout else "allow"
    if i >= 3:
        times.append(t)
        cpu.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
times.sort()
cpu.sort()
pct = lambda v, q: v[min(len(v) - 1, int(q * len(v)))]
print(f"{client:9} {what}  {first:5}  runs {runs}  wall p50 {pct(times, 0.50):6.1f} ms  p99 {pct(times, 0.99):6.1f} ms  max {times[-1]:6.1f} ms"
      f"  | cpu p50 {pct(cpu, 0.50):6.1f} ms  p99 {pct(cpu, 0.99):6.1f} ms")
EOF
exit 0
fi

python3 - "$bin/callint" "$dir" "$runs" "$client" <<'EOF'
import json, os, resource, shutil, subprocess, sys, time

callint, d, runs, client = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
cache = os.path.join(d, "cache")
after = os.environ.get("HOOK") == "after"
codex = client == "codex"
gemini = client == "gemini"


def stamp(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".000Z"


def rollout_of(session, out):
    """A Claude Code session written as Codex writes a rollout: a
    session_meta line, then each tool call, its output and the assistant's
    text."""
    out.write(json.dumps({"timestamp": "2026-10-10T09:00:00.000Z", "type": "session_meta",
                          "payload": {"id": "bench", "cwd": "/w", "originator": "codex_cli_rs", "source": "cli"}}) + "\n")
    for line in session:
        e = json.loads(line)
        ts, content = e.get("timestamp"), (e.get("message") or {}).get("content")
        if not isinstance(content, list):
            continue
        for b in content:
            if b.get("type") == "tool_use":
                p = {"type": "function_call", "name": b["name"], "arguments": json.dumps(b.get("input", {})), "call_id": b["id"]}
            elif b.get("type") == "tool_result":
                c = b.get("content")
                text = c if isinstance(c, str) else "".join(x.get("text", "") for x in c or [])
                p = {"type": "function_call_output", "call_id": b["tool_use_id"], "output": text}
            elif b.get("type") == "text":
                p = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": b["text"]}]}
            else:
                continue
            out.write(json.dumps({"timestamp": ts, "type": "response_item", "payload": p}) + "\n")


def claude_entries(server, n, t):
    """A shell command of the agent with 4 KB of output, then a `say` and
    its result, as Claude Code writes them."""
    ts = stamp(t)
    head = {"sessionId": "bench", "version": "2.1.144", "cwd": "/w", "isSidechain": False}
    call = dict(head, type="assistant", uuid=f"g-{n}-a", timestamp=ts, message={
        "role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_grow{n}",
        "name": f"mcp__{server}__say", "input": {"text": f"Step {n} is done."}}]})
    res = dict(head, type="user", uuid=f"g-{n}-u", timestamp=ts, message={
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_grow{n}",
        "content": [{"type": "text", "text": json.dumps({"say_id": f"g{n}", "say_status": "queued"})}]}]})
    work = dict(head, type="assistant", uuid=f"g-{n}-w", timestamp=ts, message={
        "role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_work{n}",
        "name": "Bash", "input": {"command": "cargo test"}}]})
    out = dict(head, type="user", uuid=f"g-{n}-o", timestamp=ts, message={
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_work{n}",
        "content": f"test step_{n} ... ok\n" * 160}]})
    return "".join(json.dumps(e) + "\n" for e in [work, out, call, res]).encode()


def codex_entries(server, n, t):
    """The same as Codex writes them: the shell command and its output,
    then the say, its end event and its output."""
    ts = stamp(t)
    answer = json.dumps({"say_id": f"g{n}", "say_status": "queued"})
    say = {"text": f"Step {n} is done."}
    items = [
        ("response_item", {"type": "function_call", "name": "shell", "call_id": f"call_work{n}",
                           "arguments": json.dumps({"command": ["bash", "-lc", "cargo test"]})}),
        ("response_item", {"type": "function_call_output", "call_id": f"call_work{n}",
                           "output": f"test step_{n} ... ok\n" * 160}),
        ("response_item", {"type": "function_call", "name": f"mcp__{server}__say", "call_id": f"call_grow{n}",
                           "arguments": json.dumps(say)}),
        ("event_msg", {"type": "mcp_tool_call_end", "call_id": f"call_grow{n}",
                       "invocation": {"server": server, "tool": "say", "arguments": say},
                       "result": {"Ok": {"content": [{"type": "text", "text": answer}]}}}),
        ("response_item", {"type": "function_call_output", "call_id": f"call_grow{n}", "output": answer}),
    ]
    return "".join(json.dumps({"timestamp": ts, "type": ty, "payload": p}) + "\n" for ty, p in items).encode()


def gemini_of(session, out):
    """A Claude Code session written as Gemini CLI records one: a metadata
    line, then each tool call as a model message with its result, and the
    model's text, each followed by the `$set` of `lastUpdated`."""
    out.write(json.dumps({"sessionId": "bench", "projectHash": "b", "startTime": "2026-10-10T09:00:00.000Z",
                          "lastUpdated": "2026-10-10T09:00:00.000Z", "kind": "main"}) + "\n")
    calls = {}
    n = 0
    for line in session:
        e = json.loads(line)
        ts, content = e.get("timestamp"), (e.get("message") or {}).get("content")
        if not isinstance(content, list):
            continue
        for b in content:
            n += 1
            if b.get("type") == "tool_use":
                calls[b["id"]] = b
                continue
            if b.get("type") == "tool_result":
                c = b.get("content")
                text = c if isinstance(c, str) else "".join(x.get("text", "") for x in c or [])
                use = calls.pop(b["tool_use_id"], None)
                if use is None:
                    continue
                name = use["name"]
                if name.startswith("mcp__"):
                    _, server, tool = name.split("__", 2)
                    name = f"mcp_{server}_{tool}"
                    text = "<untrusted_context>\n" + text + "\n</untrusted_context>"
                m = {"id": f"m{n}", "timestamp": ts, "type": "gemini", "content": "", "toolCalls": [
                    {"id": b["tool_use_id"], "name": name, "args": use.get("input", {}), "status": "success", "timestamp": ts,
                     "result": [{"functionResponse": {"id": b["tool_use_id"], "name": name, "response": {"output": text}}}]}]}
            elif b.get("type") == "text":
                m = {"id": f"m{n}", "timestamp": ts, "type": "gemini", "content": b["text"]}
            else:
                continue
            out.write(json.dumps(m) + "\n" + json.dumps({"$set": {"lastUpdated": ts}}) + "\n")


def gemini_entries(server, n, t):
    """The same as Gemini CLI records them: the shell command's message,
    then the say's, each with its result and the `$set` after it."""
    ts = stamp(t)
    answer = json.dumps({"say_id": f"g{n}", "say_status": "queued"})
    work = {"id": f"gw{n}", "timestamp": ts, "type": "gemini", "content": "", "toolCalls": [
        {"id": f"sh{n}", "name": "run_shell_command", "args": {"command": "cargo test"}, "status": "success", "timestamp": ts,
         "result": [{"functionResponse": {"id": f"sh{n}", "name": "run_shell_command",
                                          "response": {"output": f"test step_{n} ... ok\n" * 160}}}]}]}
    name = f"mcp_{server}_say"
    say = {"id": f"gs{n}", "timestamp": ts, "type": "gemini", "content": "", "toolCalls": [
        {"id": f"say{n}", "name": name, "args": {"text": f"Step {n} is done."}, "status": "success", "timestamp": ts,
         "result": [{"functionResponse": {"id": f"say{n}", "name": name,
                                          "response": {"output": "<untrusted_context>\n" + answer + "\n</untrusted_context>"}}}]}]}
    set_ = {"$set": {"lastUpdated": ts}}
    return "".join(json.dumps(e) + "\n" for e in [work, set_, say, set_]).encode()


entries = codex_entries if codex else gemini_entries if gemini else claude_entries
suffix = ".rollout.jsonl" if codex else ".gemini.jsonl" if gemini else ".jsonl"
if gemini:
    with open(os.path.join(d, "one-call.jsonl")) as src, open(os.path.join(d, "one-call.gemini.jsonl"), "w") as out:
        gemini_of(src, out)
    with open(os.path.join(d, "late-call.gemini.jsonl"), "w") as out:
        with open(os.path.join(d, "one-call.gemini.jsonl")) as one:
            shutil.copyfileobj(one, out)
        with open("corpus/seed-incident-gemini/opencode.jsonl") as late:
            out.writelines(l for l in late if "projectHash" not in json.loads(l))
if codex:
    with open(os.path.join(d, "one-call.jsonl")) as src, open(os.path.join(d, "one-call.rollout.jsonl"), "w") as out:
        rollout_of(src, out)
    with open(os.path.join(d, "late-call.rollout.jsonl"), "w") as out:
        with open(os.path.join(d, "one-call.rollout.jsonl")) as one:
            shutil.copyfileobj(one, out)
        with open("corpus/seed-incident-codex/opencode.jsonl") as late:
            out.writelines(l for l in late if json.loads(l)["type"] != "session_meta")


def run(path, server, flags):
    hook = {
        "session_id": "bench-" + os.path.basename(path),
        "transcript_path": path,
        "cwd": d,
        "hook_event_name": "PreToolUse",
        "tool_name": f"mcp__{server}__say",
        "tool_input": {"text": "Got it."},
    }
    if codex:
        hook.update({"turn_id": "t", "model": "m", "permission_mode": "default", "tool_use_id": "call_bench"})
    if gemini:
        hook.update({"hook_event_name": "BeforeTool", "tool_name": f"mcp_{server}_say",
                     "mcp_context": {"server_name": server, "tool_name": "say"}})
    sub = ["guard"]
    if after:
        sub = ["guard", "feedback"]
        answer = json.dumps({"say_id": "bench", "say_status": "queued"})
        if gemini:
            hook.update({"hook_event_name": "AfterTool",
                         "tool_response": {"llmContent": [{"text": answer}], "returnDisplay": answer}})
        else:
            hook.update({"hook_event_name": "PostToolUse", "tool_use_id": hook.get("tool_use_id", "toolu_bench"),
                         "tool_response": {"content": [{"type": "text", "text": answer}]}})
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    s = time.perf_counter()
    keep = [] if "--no-cache" in flags else ["--cache-dir", cache]
    p = subprocess.run([callint] + sub + ["--client", client] + keep + flags, input=json.dumps(hook).encode(), capture_output=True)
    t = (time.perf_counter() - s) * 1000
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    c = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000
    if after:
        decision = "told" if p.stdout else "quiet"
    elif not p.stdout:
        decision = "allow"
    elif gemini:
        decision = json.loads(p.stdout)["decision"]
    else:
        decision = json.loads(p.stdout)["hookSpecificOutput"]["permissionDecision"]
    return t, c, decision


pct = lambda v, q: v[min(len(v) - 1, int(q * len(v)))]
grown = []
for name, server in [("one-call", "voicehook"), ("late-call", "vh")]:
    src = os.path.join(d, name + suffix)
    grow = os.path.join(d, name + ".grow" + suffix)
    shutil.copyfile(src, grow)
    grown.append((grow, server))
    for how, path, flags in [("warm", src, []), ("grows", grow, []), ("no-cache", src, ["--no-cache"])]:
        times, cpu = [], []
        for i in range(runs + 3):
            if how == "grows":
                with open(path, "ab") as f:
                    f.write(entries(server, i, 1791622800 + i))
            t, c, decision = run(path, server, flags)
            if i == 0:
                first = decision
            if i >= 3:  # warm-up runs left out
                times.append(t)
                cpu.append(c)
        times.sort()
        cpu.sort()
        size = os.path.getsize(path) / 1e6
        print(f"{client + (' after' if after else ''):17} {name:9} {how:8} {size:5.1f} MB  {first:5}  runs {runs}  wall p50 {pct(times, 0.50):6.1f} ms  p99 {pct(times, 0.99):6.1f} ms  max {times[-1]:6.1f} ms"
              f"  | cpu p50 {pct(cpu, 0.50):6.1f} ms  p99 {pct(cpu, 0.99):6.1f} ms")
# (After the call, a finding is told once a session: the kept run has told
# it already, so the two are not compared there.)
for path, server in [] if after else grown:
    kept, fresh = run(path, server, [])[2], run(path, server, ["--no-cache"])[2]
    if kept != fresh:
        sys.exit(f"{path}: {kept} with the cache, {fresh} without it")
if not after:
    print("the grown sessions are judged alike with and without the cache")
EOF
