#!/usr/bin/env python3
"""Time from a change to its diagnostics in `callint server`, and the
server's memory on a large log. Speaks the protocol itself (standard
library only), as an editor that takes pushed diagnostics does.

  - skill:  a 2,000-line skill open in the editor; each change is one
            line edited (an incremental change, as editors send), timed
            until the diagnostics of that version arrive;
  - log:    a log open in the editor that grows on disk; each change is
            one line appended to the file and the watched-file event,
            timed until the diagnostics are published again;
  - memory: a large log opened, then the server's peak and current
            resident set (VmHWM, VmRSS) once its diagnostics are in.

Usage: bench_server.py BINARY SKILL LOG10 LOG50 [RUNS]
Prints one line per measure: p50 and p99 in milliseconds, or KiB.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import threading
import time
import queue


class Server:
    def __init__(self, binary: str, root: pathlib.Path) -> None:
        self.p = subprocess.Popen([binary, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.inbox: "queue.Queue[dict]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0
        self.request("initialize", {"capabilities": {}, "rootUri": root.as_uri(), "processId": os.getpid()})
        self.notify("initialized", {})

    def _read(self) -> None:
        out = self.p.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.inbox.put(json.loads(out.read(length)))

    def send(self, msg: dict) -> None:
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            m = self.inbox.get(timeout=600)
            if m.get("id") == self.next_id and "method" not in m:
                return m

    def published(self, uri: str, version=None) -> list:
        while True:
            m = self.inbox.get(timeout=600)
            if m.get("method") != "textDocument/publishDiagnostics":
                continue
            p = m["params"]
            if p["uri"] == uri and (version is None or p.get("version") == version):
                return p["diagnostics"]

    def status(self, key: str) -> int:
        for line in pathlib.Path(f"/proc/{self.p.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return -1

    def close(self) -> None:
        self.request("shutdown", None)
        self.notify("exit", None)
        self.p.wait(timeout=60)


def percentiles(ms: list) -> str:
    ms = sorted(ms)
    pick = lambda q: ms[min(len(ms) - 1, int(round(q * (len(ms) - 1))))]
    return f"p50 {pick(0.50):7.1f} ms   p99 {pick(0.99):7.1f} ms   max {ms[-1]:7.1f} ms   runs {len(ms)}"


def open_doc(s: Server, path: pathlib.Path, text: str) -> str:
    uri = path.as_uri()
    s.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "plaintext", "version": 1, "text": text}},
    )
    return uri


def bench_skill(binary: str, skill: pathlib.Path, runs: int) -> str:
    s = Server(binary, skill.parent)
    text = skill.read_text(encoding="utf-8")
    lines = text.split("\n")
    uri = open_doc(s, skill, text)
    found = s.published(uri, 1)
    # A prose line to edit: its last word toggled back and forth.
    at = next(k for k, l in enumerate(lines) if l.startswith("You are the release agent"))
    times = []
    for v in range(2, runs + 2):
        word = "it." if v % 2 else "it!"
        change = {
            "range": {
                "start": {"line": at, "character": len(lines[at]) - 3},
                "end": {"line": at, "character": len(lines[at])},
            },
            "text": word,
        }
        t = time.perf_counter()
        s.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": v}, "contentChanges": [change]},
        )
        s.published(uri, v)
        times.append((time.perf_counter() - t) * 1000)
    s.close()
    return f"skill {text.count(chr(10))} lines, {len(found)} findings: {percentiles(times)}"


def bench_log(binary: str, log: pathlib.Path, runs: int) -> str:
    original = log.read_bytes()
    try:
        s = Server(binary, log.parent)
        uri = open_doc(s, log, original.decode("utf-8"))
        s.published(uri)
        # An appended line: a say of the log's own, again.
        line = next(l for l in original.split(b"\n") if b'"fn":"say"' in l) + b"\n"
        times = []
        for _ in range(runs):
            with log.open("ab") as f:
                f.write(line)
            t = time.perf_counter()
            s.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 2}]})
            s.published(uri)
            times.append((time.perf_counter() - t) * 1000)
        s.close()
    finally:
        log.write_bytes(original)
    return f"log {len(original) / 1e6:.1f} MB, one line appended: {percentiles(times)}"


def bench_memory(binary: str, log: pathlib.Path) -> str:
    text = log.read_text(encoding="utf-8")
    s = Server(binary, log.parent)
    idle = s.status("VmRSS")
    t = time.perf_counter()
    uri = open_doc(s, log, text)
    found = s.published(uri)
    took = time.perf_counter() - t
    peak, now = s.status("VmHWM"), s.status("VmRSS")
    s.close()
    return (
        f"memory, log {len(text.encode()) / 1e6:.1f} MB open ({len(found)} findings, {took:.2f} s to lint): "
        f"peak {peak} KiB, after {now} KiB, idle before {idle} KiB"
    )


def main() -> None:
    binary = sys.argv[1]
    skill, log10, log50 = (str(pathlib.Path(p).resolve()) for p in sys.argv[2:5])
    runs = int(sys.argv[5]) if len(sys.argv) > 5 else 200
    print(bench_skill(binary, pathlib.Path(skill), runs), flush=True)
    print(bench_log(binary, pathlib.Path(log10), max(20, runs // 4)), flush=True)
    print(bench_memory(binary, pathlib.Path(log50)), flush=True)


if __name__ == "__main__":
    main()
