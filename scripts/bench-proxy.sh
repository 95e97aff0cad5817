#!/usr/bin/env bash
# What `callint proxy` adds to each message, measured in one run on this
# machine against the fake voicehook server (`callint fake-mcp`, on pipes):
#   - direct: the client speaks to the fake server itself (no proxy);
#   - relay: through a bare relay (examples/relay.rs: copies lines both
#     ways and does nothing else), what any process in between costs;
#   - proxy: the same client through `callint proxy -- callint fake-mcp`.
# Each in both eras of MCP: the 2025 protocols (initialize first; the light
# request is `ping`) and the stateless 2026-07-28 one (no initialize, every
# request with its version in `_meta`; `ping` is gone, the light request is
# `tools/list`). For each: the round trip of ROUNDS light requests one after
# another (p50, p99), the round trip of ROUNDS judged `say` calls (a call
# joined first), and the throughput of 10,000 messages sent at once (half
# notifications, half light requests, until the last answer). The added
# latency is proxy minus relay at each percentile (and minus direct, for the
# whole cost of a process in between).
# Usage: scripts/bench-proxy.sh [ROUNDS]   (default 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2000}
target=${CARGO_TARGET_DIR:-target}
cargo build --release --locked --quiet --bin callint --example relay
bin=$(realpath "$target/release/callint")
relay=$(realpath "$target/release/examples/relay")
dir=$target/bench-proxy
mkdir -p "$dir"

python3 - "$bin" "$rounds" "$dir" "$relay" <<'EOF'
import json, subprocess, sys, time

bin, rounds, dir, relay = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

def start(cmd):
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, bufsize=0, cwd=dir)

def send(p, m):
    p.stdin.write((json.dumps(m) + "\n").encode())

def recv(p):
    return json.loads(p.stdout.readline())

def call(p, m):
    send(p, m)
    while True:
        r = recv(p)
        if r.get("id") == m["id"] and "method" not in r:
            return r

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}

def req(era, id, method, params=None):
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    params = dict(params or {})
    if era == MODERN:
        params["_meta"] = META
    if params:
        m["params"] = params
    return m

def light(era, id):
    return req(era, id, "tools/list") if era == MODERN else req(era, id, "ping")

def run(cmd, era):
    p = start(cmd)
    if era != MODERN:
        call(p, {"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": {}})
        send(p, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    call(p, req(era, "j", "tools/call", {"name": "join", "arguments": {"call_id": "c-1", "label": "Kit"}}))
    ping = []
    for k in range(rounds):
        t = time.perf_counter_ns()
        call(p, light(era, k))
        ping.append((time.perf_counter_ns() - t) / 1e6)
    say = []
    for k in range(rounds):
        m = req(era, f"s{k}", "tools/call",
                {"name": "say", "arguments": {"text": f"The build {k} is green, I will tag it now."}})
        t = time.perf_counter_ns()
        r = call(p, m)
        say.append((time.perf_counter_ns() - t) / 1e6)
    n = 10000
    lines = []
    for k in range(n // 2):
        lines.append(json.dumps({"jsonrpc": "2.0", "method": "notifications/test", "params": {"seq": k}}))
        lines.append(json.dumps(light(era, 10**6 + k)))
    blob = ("\n".join(lines) + "\n").encode()
    t = time.perf_counter()
    import threading
    w = threading.Thread(target=lambda: p.stdin.write(blob))
    w.start()
    got = 0
    while got < n // 2:
        recv(p)
        got += 1
    w.join()
    tp = n / (time.perf_counter() - t)
    p.stdin.close()
    p.wait()
    return ping, say, tp

print(f"rounds: {rounds} (light requests and says each), throughput over 10,000 messages")
for era, what in [("2025-06-18", "ping"), (MODERN, "tools/list")]:
    direct = run([bin, "fake-mcp"], era)
    relayed = run([relay, bin, "fake-mcp"], era)
    proxied = run([bin, "proxy", "--no-config", "--record", f"rec-{era}.jsonl", "--", bin, "fake-mcp"], era)
    print(f"\nera {era} (light request: {what})")
    print(f"{'':8} {'light p50':>9} {'light p99':>9} {'say p50':>9} {'say p99':>9} {'msg/s':>9}")
    for name, (ping, say, tp) in [("direct", direct), ("relay", relayed), ("proxy", proxied)]:
        print(f"{name:8} {pct(ping,.5):8.3f}ms {pct(ping,.99):8.3f}ms {pct(say,.5):8.3f}ms {pct(say,.99):8.3f}ms {tp:9.0f}")
    pp, ps, pt = proxied
    for base, (dp, ds, dt) in [("relay", relayed), ("direct", direct)]:
        print(f"added over {base}: {what} p50 {pct(pp,.5)-pct(dp,.5):.3f} ms, p99 {pct(pp,.99)-pct(dp,.99):.3f} ms; "
              f"say (judged) p50 {pct(ps,.5)-pct(ds,.5):.3f} ms, p99 {pct(ps,.99)-pct(ds,.99):.3f} ms; "
              f"throughput {pt/dt*100:.0f}% of {base}")
EOF
