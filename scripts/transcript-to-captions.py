#!/usr/bin/env python3
"""Write a callint `.txt` transcript as WebVTT and SRT captions.

    scripts/transcript-to-captions.py corpus/seed-incident-transcript/transcript.txt \
        corpus/seed-incident-vtt/transcript.vtt corpus/seed-incident-srt/transcript.srt

Each `[hh:mm:ss] Speaker: text` line becomes one cue that starts at its time
and ends at the next line's time (three seconds at most). Times are kept as
they are (the clock time of the call, read as an offset from midnight). The
`# key: value` headers become `NOTE key: value` blocks in WebVTT and one
zero-length cue of `NOTE key: value` lines in SRT; other `#` lines become
plain `NOTE` comments in WebVTT and are left out of SRT. In WebVTT the
speaker is a voice tag (`<v Oliver>`); in SRT a `Name: ` before the text.
"""

import re
import sys

HEADER = re.compile(r"^#\s*(lang|language|human|voicebot|agents|owner)\s*:(.*)$", re.I)
LINE = re.compile(r"^\[(\d\d):(\d\d):(\d\d)\]\s*([^:]+):\s(.*)$")


def stamp(ms, sep):
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02}:{m:02}:{s:02}{sep}{ms:03}"


def read(path):
    """The transcript as items: ('header', key, value), ('comment', text)
    and ('cue', ms, speaker, text)."""
    items = []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip():
                continue
            h = HEADER.match(line)
            if h:
                items.append(("header", h.group(1).lower(), h.group(2).strip()))
                continue
            if line.startswith("#"):
                items.append(("comment", line[1:].strip()))
                continue
            m = LINE.match(line)
            if not m:
                sys.exit(f"{path}: not a timed transcript line: {line}")
            hh, mm, ss, who, text = m.groups()
            ms = ((int(hh) * 60 + int(mm)) * 60 + int(ss)) * 1000
            items.append(("cue", ms, who.strip(), text.strip()))
    return items


def ends(items):
    """Each cue's end: the next cue's start, three seconds at most."""
    starts = [i[1] for i in items if i[0] == "cue"]
    out = []
    for k, s in enumerate(starts):
        nxt = starts[k + 1] if k + 1 < len(starts) else s + 3000
        out.append(min(nxt, s + 3000) if nxt > s else s + 1000)
    return out


def vtt(items):
    out = ["WEBVTT", ""]
    end = iter(ends(items))
    n = 0
    for it in items:
        if it[0] == "header":
            out += [f"NOTE {it[1]}: {it[2]}", ""]
        elif it[0] == "comment":
            out += [f"NOTE {it[1]}", ""]
        else:
            n += 1
            out += [str(n), f"{stamp(it[1], '.')} --> {stamp(next(end), '.')}",
                    f"<v {it[2]}>{it[3]}", ""]
    return "\n".join(out)


def srt(items):
    out = []
    end = iter(ends(items))
    n = 0
    pending = []

    def flush():
        nonlocal n, pending
        if pending:
            n += 1
            out.extend([str(n), f"{stamp(0, ',')} --> {stamp(0, ',')}", *pending, ""])
            pending = []

    for it in items:
        if it[0] == "header":
            pending.append(f"NOTE {it[1]}: {it[2]}")
        elif it[0] == "cue":
            flush()
            n += 1
            out += [str(n), f"{stamp(it[1], ',')} --> {stamp(next(end), ',')}",
                    f"{it[2]}: {it[3]}", ""]
    flush()
    return "\r\n".join(out)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    items = read(sys.argv[1])
    with open(sys.argv[2], "w", encoding="utf-8", newline="") as f:
        f.write(vtt(items))
    with open(sys.argv[3], "w", encoding="utf-8", newline="") as f:
        f.write(srt(items))


if __name__ == "__main__":
    main()
