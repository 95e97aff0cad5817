//! Caption files: WebVTT (`.vtt`) and SRT (`.srt`) transcripts of the
//! room, read like the text transcript ([`super::transcript`]): every cue's
//! speaker and text, at the cue's start time, linted from every agent's
//! side.
//!
//! ```text
//! WEBVTT
//!
//! NOTE lang: en
//! NOTE human: Oliver
//! NOTE agents: Promo, opencode
//!
//! 00:00:01.000 --> 00:00:03.500
//! <v Oliver>Promo, is the build green?
//!
//! 00:00:04.000 --> 00:00:06.000
//! Promo: Yes, the build is green.
//! ```
//!
//! The speaker of a cue is its voice tag (`<v Oliver>`, `<v.loud Oliver>`,
//! whatever characters the name has: Teams writes a user's id there, and
//! times without leading zeros, `0:0:3.490`, which read as well)
//! or, as Zoom writes its captions, a `Name: ` before the text. A cue line
//! without either continues the utterance before it in the same cue; a cue
//! that names no speaker at all cannot be attributed and is skipped (one
//! problem says how many were). Styling tags (`<i>`, `<c.red>`, `<b>`,
//! karaoke times, SRT's `<font>` and `{\an8}`) are dropped and character
//! references (`&amp;`, `&#39;`) decoded.
//!
//! A WebVTT file is split into blocks as the WebVTT parser of the
//! standard splits it (a blank line is an empty one; a line holding `-->`
//! that is not a block's timing line starts the next block; the header
//! ends at a timing line), and its cue times are read as it reads them,
//! hours of one digit aside (Teams). A cue whose timing cannot be read is
//! skipped, with one problem.
//!
//! Who is who comes from the file where it says so: in WebVTT, `NOTE`
//! blocks carry the same `key: value` headers as the text transcript
//! (`lang`, `human`, `voicebot`, `agents`, `owner`), one a line (`NOTE
//! human: Oliver`, or a `NOTE` block of several `key: value` lines); the
//! `Language:` line of the WebVTT header counts as `lang`. SRT has no
//! comments: a cue whose every line is such a `NOTE key: value` line is
//! read as headers (give it a zero length, `00:00:00,000 --> 00:00:00,000`,
//! and no player shows it). A `lang` header further down switches the call
//! language from there on. What the file does not say comes from
//! `callint.toml` (`human`, `voicebot`); the human is otherwise the one
//! speaker not listed among the agents.

use super::transcript::{self, Entry, Headers, Utt};
use super::{Options, Parsed, Problem};
use crate::model::{Anchor, Ms, Span};

/// The two caption formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Vtt,
    Srt,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Vtt => "vtt",
            Kind::Srt => "srt",
        }
    }
}

/// A speaker name longer than this is taken for prose, not a name.
const MAX_SPEAKER: usize = 64;

/// A voice tag's name longer than this (in characters) is no name.
const MAX_VOICE_NAME: usize = 200;

/// A `Name:` prefix has at most this many words.
const MAX_SPEAKER_WORDS: usize = 5;

/// One line of the file as text: its number, its bytes (without the line
/// end) and its text, `None` when it is not UTF-8.
struct Line<'a> {
    no: u32,
    span: Span,
    text: Option<&'a str>,
}

/// Read a caption file into one log per agent.
pub fn parse(bytes: &[u8], kind: Kind, opts: &Options) -> Parsed {
    let mut r = Reader {
        kind,
        headers: Headers::default(),
        entries: Vec::new(),
        problems: Vec::new(),
        unattributed: None,
        cues: 0,
        in_style: false,
    };
    let all = text_lines(bytes);
    for l in &all {
        if l.text.is_none() {
            let raw = &bytes[l.span.start..l.span.end];
            let ok = std::str::from_utf8(raw).map_or_else(|e| e.valid_up_to(), |_| 0);
            let at = l.span.start + ok;
            r.problems.push(Problem::new(
                Anchor::bytes(Span::new(at, (at + 1).min(l.span.end))),
                format!("this line is not valid UTF-8 (byte 0x{:02x})", raw[ok]),
                Some("captions are UTF-8 text; this line was skipped".into()),
            ));
        }
    }
    // Blocks are separated by blank lines; a line that is not text counts
    // as blank here (its problem is reported above). In WebVTT a blank
    // line is an empty one (a line of spaces is a cue's identifier or
    // text); SRT has no such rule, and a line of spaces separates cues.
    let blank = |l: &Line<'_>| match kind {
        Kind::Vtt => l.text.is_none_or(str::is_empty),
        Kind::Srt => l.text.is_none_or(|t| t.trim().is_empty()),
    };
    let arrow = |l: &Line<'_>| l.text.is_some_and(has_arrow);
    let mut start = 0;
    if kind == Kind::Vtt {
        match all.iter().position(|l| !blank(l)) {
            Some(k) if all[k].text.is_some_and(is_vtt_signature) => {
                // The header: the signature line, then `Key: value` lines up
                // to the first blank line, or to a cue's timing line.
                let mut end = k + 1;
                while end < all.len() && !blank(&all[end]) && !arrow(&all[end]) {
                    end += 1;
                }
                for l in &all[k + 1..end] {
                    r.header_line(l, l.text.unwrap_or(""), 0);
                }
                start = end;
            }
            Some(k) => r.problems.push(Problem::new(
                Anchor::bytes(all[k].span),
                "a WebVTT file starts with a `WEBVTT` line".into(),
                Some("the cues below were read all the same".into()),
            )),
            None => {}
        }
    }
    let rest = &all[start..];
    let mut i = 0;
    while i < rest.len() {
        if blank(&rest[i]) {
            i += 1;
            continue;
        }
        let block_end = |from: usize| {
            let mut j = from;
            while j < rest.len() && !blank(&rest[j]) {
                j += 1;
            }
            j
        };
        let mut j = match kind {
            Kind::Vtt => vtt_block_end(rest, i, &blank),
            Kind::Srt => block_end(i),
        };
        // An SRT cue's text may hold blank lines (some bots write
        // paragraphs): a block after a cue that is no cue of its own (no
        // timing line as its first or second line) is more of its text.
        if kind == Kind::Srt && has_timing(&rest[i..j]) {
            loop {
                let mut k = j;
                while k < rest.len() && blank(&rest[k]) {
                    k += 1;
                }
                if k == rest.len() {
                    break;
                }
                let m = block_end(k);
                if has_timing(&rest[k..m]) {
                    break;
                }
                j = m;
            }
        }
        r.block(&rest[i..j]);
        i = j;
    }
    let unattributed = r.unattributed.take();
    let cues = r.cues;
    let mut parsed = transcript::views(r.headers, r.entries, r.problems, opts, kind.name());
    parsed.read = cues;
    if let Some((at, n)) = unattributed {
        if let Some(u) = parsed.unknown_roles.as_mut().filter(|u| !u.voicehook) {
            // Captions of no voicehook call: unattributed cues are no
            // fault of theirs, and the one note says what was not judged.
            if u.at.span.is_empty() {
                u.at = Anchor::bytes(at);
            }
            return parsed;
        }
        parsed.problems.push(Problem::new(
            Anchor::bytes(at),
            format!(
                "{n} cue line{} here and below name{} no speaker and {} skipped",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" },
                if n == 1 { "was" } else { "were" }
            ),
            Some("callint needs to know who speaks: a voice tag `<v Name>` or a `Name: ` before the text".into()),
        ));
    }
    parsed
}

/// The lines of `bytes` (without their ends; a byte order mark at the
/// start left out, and a second one at the start of the first line too),
/// each with its text when it is UTF-8. One vector sized by a count of
/// the line ends first: a large file has a hundred thousand lines, and
/// growing the vector (or building it from another) copies them again.
fn text_lines(bytes: &[u8]) -> Vec<Line<'_>> {
    let start = super::bom_len(bytes);
    let mut all = Vec::with_capacity(memchr::memchr_iter(b'\n', &bytes[start..]).count() + 1);
    all.extend(super::json::line_spans(bytes, start).map(|l| {
        let raw = &bytes[l.span.start..l.span.end];
        let skip = if l.no == 1 && raw.starts_with(b"\xef\xbb\xbf") {
            3
        } else {
            0
        };
        Line {
            no: l.no,
            span: Span::new(l.span.start + skip, l.span.end),
            text: std::str::from_utf8(&raw[skip..]).ok(),
        }
    }));
    all
}

/// Where the WebVTT block that starts at `i` ends, as the WebVTT parser
/// collects a block: at a blank line, or at a line holding `-->` that is
/// not the block's timing line (its first line, or its second after an
/// identifier), which starts the next block.
fn vtt_block_end(lines: &[Line<'_>], i: usize, blank: &impl Fn(&Line<'_>) -> bool) -> usize {
    let mut seen_arrow = false;
    let mut j = i;
    while j < lines.len() && !blank(&lines[j]) {
        if lines[j].text.is_some_and(has_arrow) {
            let n = j - i + 1;
            if n == 1 || (n == 2 && !seen_arrow) {
                seen_arrow = true;
            } else {
                break;
            }
        }
        j += 1;
    }
    j
}

/// Whether a block is a cue: its first or second line is a timing line.
fn has_timing(b: &[Line<'_>]) -> bool {
    timing_at(b).is_some()
}

/// Where a block's timing line is: first, or second after a cue
/// identifier (an SRT cue's number).
fn timing_at(b: &[Line<'_>]) -> Option<usize> {
    b.iter().take(2).position(|l| l.text.is_some_and(has_arrow))
}

/// Whether a line holds `-->`, looked for at each `>` (a cue line has
/// few).
fn has_arrow(t: &str) -> bool {
    let b = t.as_bytes();
    memchr::memchr_iter(b'>', b).any(|k| k >= 2 && &b[k - 2..k] == b"--")
}

/// `WEBVTT`, alone or followed by a space, a tab and anything.
fn is_vtt_signature(l: &str) -> bool {
    let l = l.trim_end();
    l == "WEBVTT"
        || l.strip_prefix("WEBVTT")
            .is_some_and(|r| r.starts_with([' ', '\t']))
}

struct Reader {
    kind: Kind,
    headers: Headers,
    entries: Vec<Entry>,
    problems: Vec<Problem>,
    /// The first cue line without a speaker, and how many there were.
    unattributed: Option<(Span, usize)>,
    /// How many cues were read (their timing line read).
    cues: usize,
    /// After a WebVTT `STYLE` block, before the next cue: a block that is
    /// no cue is more of the style sheet (which may hold blank lines).
    in_style: bool,
}

impl Reader {
    /// A `key: value` header in `text`, the part of line `l` from byte `off`.
    fn header_line(&mut self, l: &Line<'_>, text: &str, off: usize) -> bool {
        let Some((key, value)) = text.split_once(':') else {
            return false;
        };
        let value_at = l.span.start + off + key.len() + 1;
        transcript::header(
            &mut self.headers,
            &mut self.entries,
            (l.no, l.span),
            key,
            value,
            value_at,
        )
    }

    /// One block: a cue, a note, a style or region definition.
    fn block(&mut self, b: &[Line<'_>]) {
        let first = b[0].text.unwrap_or("");
        let t = first.trim_start();
        let timing_line = timing_at(b);
        if self.kind == Kind::Vtt && timing_line.is_none() {
            if let Some(rest) = t.strip_prefix("NOTE") {
                if rest.is_empty() || rest.starts_with([' ', '\t']) {
                    let off = first.len() - rest.len();
                    self.header_line(&b[0], rest, off);
                    for l in &b[1..] {
                        if let Some(text) = l.text {
                            // `NOTE key: value` lines one under the other
                            // read as well as bare `key: value` lines.
                            let off = text
                                .trim_start()
                                .strip_prefix("NOTE ")
                                .map_or(0, |r| text.len() - r.len());
                            self.header_line(l, &text[off..], off);
                        }
                    }
                    return;
                }
            }
            let style = t.trim_end() == "STYLE" || t.starts_with("STYLE ");
            if style || self.in_style || t.trim_end() == "REGION" || t.starts_with("REGION ") {
                self.in_style |= style;
                return;
            }
        }
        self.in_style = false;
        // The timing line: first, or second after a cue identifier (an SRT
        // cue's number).
        let Some(k) = timing_line else {
            self.problems.push(Problem::new(
                Anchor::bytes(b[0].span),
                "this block is neither a cue nor a note".into(),
                Some(format!(
                    "a cue is an optional number or name, a line `00:00:01{0}000 --> 00:00:03{0}000`, then its text; the {1} lines of this block were skipped",
                    if self.kind == Kind::Srt { ',' } else { '.' },
                    b.len()
                )),
            ));
            return;
        };
        let timing = &b[k];
        let line = timing.text.unwrap_or("");
        let ts = match self.kind {
            Kind::Vtt => match vtt_timing(line) {
                Ok(ms) => Some(ms),
                Err((off, len)) => {
                    // The WebVTT parser drops a cue whose timing it cannot
                    // read; so does callint, saying so once.
                    let at = timing.span.start + off;
                    let bad = &line[off..off + len];
                    self.problems.push(Problem::new(
                        Anchor::bytes(Span::new(at, at + len)),
                        if bad.is_empty() {
                            format!(
                                "this cue's timing line has no {} time",
                                if off + len <= line.find("-->").unwrap_or(0) { "start" } else { "end" }
                            )
                        } else {
                            format!("`{}` is not a cue time", crate::core::escape::one_line(bad))
                        },
                        Some("write WebVTT cue times as hh:mm:ss.ttt or mm:ss.ttt, `start --> end`; this cue was skipped".into()),
                    ));
                    return;
                }
            },
            Kind::Srt => {
                let stamp = line.split("-->").next().unwrap_or("");
                let lead = stamp.len() - stamp.trim_start().len();
                let stamp_t = stamp.trim();
                match cue_time(stamp_t) {
                    Some(ms) => Some(ms),
                    None => {
                        let at = timing.span.start + lead;
                        self.problems.push(Problem::new(
                            Anchor::bytes(Span::new(at, at + stamp_t.len())),
                            format!(
                                "`{}` is not a cue time",
                                crate::core::escape::one_line(stamp_t)
                            ),
                            Some("write cue times as hh:mm:ss,ttt; rules that need the time skip this cue".into()),
                        ));
                        None
                    }
                }
            }
        };
        if ts.is_some() {
            self.cues += 1;
        }
        let payload = &b[k + 1..];
        // A cue of headers only (SRT's way of carrying them).
        let is_header = |l: &Line<'_>| {
            l.text.is_some_and(|t| {
                t.trim_start()
                    .strip_prefix("NOTE ")
                    .and_then(|r| r.split_once(':'))
                    .is_some_and(|(k, _)| {
                        matches!(
                            k.trim().to_ascii_lowercase().as_str(),
                            "lang" | "language" | "human" | "voicebot" | "agents" | "owner"
                        )
                    })
            })
        };
        if !payload.is_empty() && payload.iter().all(is_header) {
            for l in payload {
                let text = l.text.unwrap_or("");
                let off = text.find("NOTE ").map_or(0, |k| k + 5);
                self.header_line(l, &text[off..], off);
            }
            return;
        }
        self.cue(payload, ts);
    }

    /// The text lines of one cue, as utterances at time `ts`.
    fn cue(&mut self, payload: &[Line<'_>], ts: Option<Ms>) {
        let mut cur: Option<Utt> = None;
        for (k, l) in payload.iter().enumerate() {
            let Some(text) = l.text else { continue };
            let lead = text.len() - text.trim_start().len();
            let t = text.trim();
            if t.is_empty() {
                continue;
            }
            let at =
                |off: usize, len: usize| Span::new(l.span.start + off, l.span.start + off + len);
            // Who speaks: a voice tag, else `Name: ` on the cue's first
            // line, on a dialogue line (`- `) or where no one speaks yet.
            let voice = voice_tag(t);
            let tags = leading_tags(t);
            let named = match voice {
                Some(_) => None,
                None if k == 0 || cur.is_none() || t[tags..].starts_with("- ") => {
                    name_prefix(&t[tags..]).map(|(n, at, body)| (n, tags + at, tags + body))
                }
                None => None,
            };
            if let Some((name, name_off, _)) = voice {
                if name.chars().nth(MAX_VOICE_NAME).is_some() {
                    let n = name.chars().count();
                    self.problems.push(Problem::new(
                        Anchor::bytes(at(lead + name_off, name.len())),
                        format!("this voice tag names a speaker of {n} characters, too long for a name"),
                        Some(format!("a name is at most {MAX_VOICE_NAME} characters; this cue line was skipped")),
                    ));
                    if let Some(u) = cur.take() {
                        self.push(u);
                    }
                    continue;
                }
            }
            let (speaker, body_off) = match (voice, named) {
                (Some((name, name_off, body)), _) => (Some((name, name_off)), body),
                (None, Some((name, name_off, body))) => (Some((name, name_off)), body),
                (None, None) => (None, 0),
            };
            let body = &t[body_off..];
            let clean = clean_text(body);
            let b_lead = body.len() - body.trim_start().len();
            let b_trim = body.trim_end().len();
            let text_span = at(lead + body_off + b_lead, b_trim.saturating_sub(b_lead));
            match speaker {
                Some((name, name_off)) => {
                    if let Some(u) = cur.take() {
                        self.push(u);
                    }
                    cur = Some(Utt {
                        line: l.no,
                        span: l.span,
                        ts,
                        speaker: name.to_string(),
                        speaker_span: at(lead + name_off, name.len()),
                        text: clean,
                        text_span,
                    });
                }
                None => match &mut cur {
                    Some(u) => {
                        if !clean.is_empty() {
                            if !u.text.is_empty() {
                                u.text.push(' ');
                            }
                            u.text.push_str(&clean);
                            if u.text_span.start == u.text_span.end {
                                u.text_span = text_span;
                            } else {
                                u.text_span.end = text_span.end;
                            }
                        }
                        u.span.end = l.span.end;
                    }
                    None => {
                        if !clean.is_empty() {
                            let n = self.unattributed.get_or_insert((at(lead, t.len()), 0));
                            n.1 += 1;
                        }
                    }
                },
            }
        }
        if let Some(u) = cur {
            self.push(u);
        }
    }

    fn push(&mut self, u: Utt) {
        if !u.text.is_empty() {
            self.entries.push(Entry::Utt(u));
        }
    }
}

/// A voice tag at the start of a cue line, `<v Name>` or `<v.class Name>`
/// (after any other opening tags): the name, its offset, and the offset of
/// the text after the tag.
fn voice_tag(t: &str) -> Option<(&str, usize, usize)> {
    let mut pos = 0;
    loop {
        let rest = &t[pos..];
        if !rest.starts_with('<') {
            return None;
        }
        let close = rest.find('>')?;
        let inner = &rest[1..close];
        if let Some(after_v) = inner.strip_prefix('v') {
            if after_v.starts_with([' ', '\t', '.']) {
                // Classes run up to the first white space.
                let ann = after_v.find([' ', '\t']).map(|k| &after_v[k..])?;
                let lead = ann.len() - ann.trim_start().len();
                let name = ann.trim();
                // A voice tag names a speaker whatever its characters (Teams
                // writes a user id and a tenant id there): how long a name
                // may be is judged where the cue is read.
                if name.is_empty() {
                    return None;
                }
                let name_off = pos + 1 + 1 + (after_v.len() - ann.len()) + lead;
                return Some((name, name_off, pos + close + 1));
            }
        }
        // Another opening tag (`<c.yellow>`, `<i>`): look past it.
        if inner.starts_with('/') {
            return None;
        }
        pos += close + 1;
    }
}

/// The length of the styling tags (`<i>`, `{\an8}`) a cue line opens with.
fn leading_tags(t: &str) -> usize {
    let mut pos = 0;
    loop {
        let rest = &t[pos..];
        let close = if rest.starts_with('<') && !rest.starts_with("<v") {
            rest.find('>')
        } else if rest.starts_with("{\\") {
            rest.find('}')
        } else {
            None
        };
        match close {
            Some(k) => pos += k + 1,
            None => return pos,
        }
    }
}

/// `Name: text`, as Zoom writes a cue (after an optional `- ` or `>> `):
/// the name, its offset and the offset of the text. A name is short, has a
/// few words and no sentence punctuation, so prose with a colon is not
/// taken for one.
fn name_prefix(t: &str) -> Option<(&str, usize, usize)> {
    let skip = ["- ", ">> ", "-- "]
        .iter()
        .find_map(|p| t.strip_prefix(p).map(|_| p.len()))
        .unwrap_or(0);
    let rest = &t[skip..];
    let colon = rest.find(':')?;
    let after = &rest[colon + 1..];
    if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
        return None;
    }
    let name = rest[..colon].trim_end();
    if name.is_empty()
        || name.chars().count() > MAX_SPEAKER
        || name.split_whitespace().count() > MAX_SPEAKER_WORDS
        || name.contains(['<', '>', '[', ']', '{', '}', '"', ',', '?', '!', ';'])
    {
        return None;
    }
    Some((name, skip, skip + colon + 1))
}

/// A cue line's text as spoken: tags dropped, character references decoded,
/// white space folded (runs of it, decoded references among them, one
/// space; none at the ends). One pass into one string: a large file has
/// tens of thousands of cue lines.
fn clean_text(s: &str) -> String {
    let mut out = Folded {
        text: String::with_capacity(s.len()),
        space: false,
    };
    let mut rest = s;
    while let Some(&b) = rest.as_bytes().first() {
        match b {
            b'<' => {
                if let Some(k) = rest.find('>') {
                    rest = &rest[k + 1..];
                    continue;
                }
            }
            b'{' if rest[1..].starts_with('\\') => {
                if let Some(k) = rest.find('}') {
                    rest = &rest[k + 1..];
                    continue;
                }
            }
            b'&' => {
                if let Some((decoded, len)) = reference(rest) {
                    if let Some(c) = decoded {
                        out.push(c);
                    }
                    rest = &rest[len..];
                    continue;
                }
            }
            _ => {}
        }
        if b.is_ascii() {
            out.push(char::from(b));
            rest = &rest[1..];
        } else {
            let c = rest.chars().next().unwrap_or_default();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out.text
}

/// Text with its white space folded as it is written: what
/// `split_whitespace` and a join with single spaces would make of it.
struct Folded {
    text: String,
    /// White space was seen after the last character written.
    space: bool,
}

impl Folded {
    fn push(&mut self, c: char) {
        if c.is_whitespace() {
            self.space = true;
            return;
        }
        if self.space && !self.text.is_empty() {
            self.text.push(' ');
        }
        self.space = false;
        self.text.push(c);
    }
}

/// The character a reference at the start of `s` stands for (none for the
/// invisible direction marks), and its length.
fn reference(s: &str) -> Option<(Option<char>, usize)> {
    // The `;` within the first 12 bytes; it is ASCII, so where it is found
    // is a character boundary, whatever the bytes around it.
    let end = s.bytes().take(12).position(|b| b == b';')?;
    let body = &s[1..end];
    let c = match body {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "lrm" | "rlm" => return Some((None, end + 1)),
        _ => {
            let n = body.strip_prefix('#')?;
            let code = match n.strip_prefix(['x', 'X']) {
                Some(h) => u32::from_str_radix(h, 16).ok()?,
                None => n.parse().ok()?,
            };
            char::from_u32(code).filter(|c| !c.is_control())?
        }
    };
    Some((Some(c), end + 1))
}

/// White space as WebVTT counts it around a timing's parts.
fn vtt_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0c')
}

/// A WebVTT timing line's start time, as the WebVTT parser reads it: the
/// start time, `-->` and the end time, each with white space around it
/// or not, settings after it. On failure, the offset and length of the
/// part that is not a time.
fn vtt_timing(line: &str) -> Result<Ms, (usize, usize)> {
    let (a, b) = line.split_once("-->").unwrap_or((line, ""));
    let lead = a.len() - a.trim_start_matches(vtt_space).len();
    let start = a.trim_matches(vtt_space);
    let Some(ms) = vtt_time(start) else {
        return Err((lead, start.len()));
    };
    let b_off = a.len() + 3;
    let b_lead = b.len() - b.trim_start_matches(vtt_space).len();
    let end = b[b_lead..]
        .split(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))
        .next()
        .unwrap_or("");
    match vtt_time(end) {
        Some(_) => Ok(ms),
        None => Err((b_off.min(line.len()) + b_lead, end.len())),
    }
}

/// A WebVTT time: `hh:mm:ss.ttt` (hours of two digits or more) or
/// `mm:ss.ttt`, in milliseconds. Hours of one digit are read as Teams
/// writes them, minutes and seconds of one digit or two and one to three
/// digits of a second (`0:0:3.49`).
fn vtt_time(s: &str) -> Option<Ms> {
    let (main, frac) = s.split_once('.')?;
    // Digits only, `min` to `max` of them (no allocation: a cue has two
    // times, a file many thousand cues).
    let num = |p: &str, min: usize, max: usize| -> Option<i64> {
        if p.len() < min || p.len() > max {
            return None;
        }
        p.bytes().try_fold(0i64, |n, b| {
            b.is_ascii_digit().then(|| n * 10 + i64::from(b - b'0'))
        })
    };
    let mut parts = main.split(':');
    let (a, b, c) = (parts.next()?, parts.next(), parts.next());
    if parts.next().is_some() {
        return None;
    }
    let (h, m, sec, least) = match (b, c) {
        (Some(m), Some(sec)) if a.len() == 1 => (num(a, 1, 1)?, num(m, 1, 2)?, num(sec, 1, 2)?, 1),
        (Some(m), Some(sec)) => (num(a, 2, 9)?, num(m, 2, 2)?, num(sec, 2, 2)?, 3),
        (Some(sec), None) => (0, num(a, 2, 2)?, num(sec, 2, 2)?, 3),
        _ => return None,
    };
    if m > 59 || sec > 59 {
        return None;
    }
    let f = num(frac, least, 3)?;
    let ms = f * [100, 10, 1][frac.len() - 1];
    Some(((h * 60 + m) * 60 + sec) * 1000 + ms)
}

/// A cue time (`hh:mm:ss.ttt`, `mm:ss.ttt`; SRT writes a comma) in
/// milliseconds from the start of the recording.
fn cue_time(s: &str) -> Option<Ms> {
    let (main, frac) = match s.split_once(['.', ',']) {
        Some((m, f)) => (m, Some(f)),
        None => (s, None),
    };
    let num = |p: &str, max: usize| -> Option<i64> {
        (!p.is_empty() && p.len() <= max && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let parts: Vec<&str> = main.split(':').collect();
    let (h, m, sec) = match parts.as_slice() {
        [h, m, s] => (num(h, 4)?, num(m, 2)?, num(s, 2)?),
        [m, s] => (0, num(m, 2)?, num(s, 2)?),
        _ => return None,
    };
    if m > 59 || sec > 59 {
        return None;
    }
    let ms = match frac {
        None => 0,
        Some(f) => {
            if f.is_empty() || f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let digits: String = f.chars().chain("000".chars()).take(3).collect();
            digits.parse().ok()?
        }
    };
    Some(((h * 60 + m) * 60 + sec) * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EventKind, Log, Op};

    fn says(log: &Log) -> Vec<String> {
        log.records
            .iter()
            .filter_map(|r| match &r.as_fn()?.op {
                Op::Say(s) => Some(s.text.as_ref()?.as_str().to_string()),
                _ => None,
            })
            .collect()
    }

    fn heard(log: &Log) -> Vec<(&str, String)> {
        log.records
            .iter()
            .filter_map(|r| {
                let ev = crate::model::next_event(r)?;
                let line = match &ev.kind {
                    EventKind::User(l) | EventKind::Operator(l) => &**l,
                    _ => ev.agent_said.first().or(ev.operators_said.first())?,
                };
                Some((ev.kind.name(), line.text.as_ref()?.as_str().to_string()))
            })
            .collect()
    }

    const VTT: &str = "WEBVTT\nLanguage: en\n\nNOTE human: Oliver\n\nNOTE\nagents: Promo, Kit\nowner: Promo\n\n1\n00:00:01.000 --> 00:00:03.000 align:start\n<v Promo>Hi, this is Promo,\nI'm in and listening.</v>\n\n00:00:04.000 --> 00:00:05.000\n<v.loud Oliver>Promo, is the build <i>green</i>?\n\n00:05.500 --> 00:06.000\n<v Promo>Yes &amp; it's ready.\n<v Kit>Kit here.\n";

    #[test]
    fn voice_tags_notes_and_header() {
        let p = parse(VTT.as_bytes(), Kind::Vtt, &Options::default());
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(p.logs.len(), 2);
        let promo = &p.logs[0];
        assert_eq!(
            says(promo),
            [
                "Hi, this is Promo, I'm in and listening.",
                "Yes & it's ready."
            ]
        );
        assert_eq!(
            heard(promo),
            [
                ("user", "Promo, is the build green?".to_string()),
                ("timeout", "Kit here.".to_string())
            ]
        );
        let meta = promo.meta.as_ref().unwrap();
        assert_eq!(meta.human.as_deref(), Some("Oliver"));
        assert_eq!(meta.recorder.as_deref(), Some("vtt"));
        // times are the cues' starts
        let times: Vec<Option<Ms>> = promo.records.iter().map(|r| r.ts).collect();
        assert_eq!(
            times,
            [None, Some(1_000), Some(4_000), Some(5_500), Some(5_500)]
        );
        // the text points at the cue's text
        let r = &promo.records[1];
        let Op::Say(s) = &r.as_fn().unwrap().op else {
            panic!()
        };
        let sp = s.text.as_ref().unwrap().within().unwrap();
        assert_eq!(
            &VTT[sp.start..sp.end],
            "Hi, this is Promo,\nI'm in and listening.</v>"
        );
        // the join carries the language of the header
        let Op::Join(j) = &promo.records[0].as_fn().unwrap().op else {
            panic!()
        };
        let lang = j.context.as_ref().unwrap().lang.as_ref().unwrap();
        assert_eq!(lang.as_str(), "en");
    }

    #[test]
    fn zoom_cues_with_names_and_the_human_from_the_options() {
        let src = "WEBVTT\n\n1\n00:00:01.200 --> 00:00:03.100\nInes Maier: Kit, can you check the logs?\n\n2\n00:00:04.000 --> 00:00:05.000\nKit: On it, one moment.\n\n3\n00:00:06.000 --> 00:00:07.000\nBolt: Note: the logs are clean.\n";
        let opts = Options {
            human: Some("Ines Maier".into()),
            ..Options::default()
        };
        let p = parse(src.as_bytes(), Kind::Vtt, &opts);
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(p.logs.len(), 2, "Kit and Bolt are the agents");
        assert_eq!(says(&p.logs[1]), ["Note: the logs are clean."]);
        // without the options, nothing shows a voicehook call: no problem,
        // the roles unknown
        let p = parse(src.as_bytes(), Kind::Vtt, &Options::default());
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert!(p.unknown_roles.as_ref().is_some_and(|u| !u.voicehook));
        assert_eq!(p.logs.len(), 3);
    }

    #[test]
    fn srt_with_a_header_cue() {
        let src = "1\r\n00:00:00,000 --> 00:00:00,000\r\nNOTE lang: de\r\nNOTE human: Oliver\r\nNOTE agents: Kit\r\n\r\n1\r\n00:00:01,000 --> 00:00:02,000\r\n<i>Kit: Hallo, hier ist Kit.</i>\r\n\r\n2\r\n00:00:02,500 --> 00:00:04,000\r\nOliver: Kit, <b>wie</b> steht's?\r\n\r\n3\r\n00:00:05,000 --> 00:00:06,000\r\n{\\an8}Kit: Alles grün.\r\n";
        let p = parse(src.as_bytes(), Kind::Srt, &Options::default());
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(p.logs.len(), 1);
        let kit = &p.logs[0];
        assert_eq!(says(kit), ["Hallo, hier ist Kit.", "Alles grün."]);
        assert_eq!(heard(kit), [("user", "Kit, wie steht's?".to_string())]);
        let Op::Join(j) = &kit.records[0].as_fn().unwrap().op else {
            panic!()
        };
        assert_eq!(
            j.context.as_ref().unwrap().lang.as_ref().unwrap().as_str(),
            "de"
        );
        assert_eq!(kit.records[2].ts, Some(2_500));
    }

    #[test]
    fn cues_without_a_speaker_are_one_problem() {
        let src = "WEBVTT\n\nNOTE agents: A\n\n00:01.000 --> 00:02.000\nhello there\n\n00:03.000 --> 00:04.000\nand again\n\nnot a cue\n\n00:0x.000 --> 00:05.000\nA: fine\n";
        let p = parse(src.as_bytes(), Kind::Vtt, &Options::default());
        let msgs: Vec<&str> = p.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert!(msgs[0].contains("neither a cue nor a note"));
        assert!(msgs[1].contains("not a cue time"));
        assert!(msgs[2].starts_with("2 cue lines"));
        assert_eq!(p.logs.len(), 1);
        // captions of no voicehook call: their cues without a speaker are
        // told of by the one note on the roles
        let bare = src.replace("NOTE agents: A\n\n", "");
        let p = parse(bare.as_bytes(), Kind::Vtt, &Options::default());
        assert_eq!(p.problems.len(), 2, "{:?}", p.problems);
        assert!(p.unknown_roles.is_some_and(|u| !u.voicehook));
    }

    #[test]
    fn a_missing_signature_is_said() {
        let p = parse(
            b"00:01.000 --> 00:02.000\nA: hi\n\nNOTE agents: A\n",
            Kind::Vtt,
            &Options::default(),
        );
        assert_eq!(p.problems.len(), 1);
        assert!(p.problems[0].message.contains("WEBVTT"));
        assert_eq!(p.logs.len(), 1);
    }

    #[test]
    fn times_and_text() {
        assert_eq!(cue_time("01:02:03.456"), Some(3_723_456));
        assert_eq!(cue_time("02:03,4"), Some(123_400));
        assert_eq!(cue_time("100:00:00.000"), Some(360_000_000));
        assert_eq!(cue_time("00:60:00.000"), None);
        assert_eq!(cue_time("1:2:3:4"), None);
        assert_eq!(cue_time("00:00:01."), None);
        assert_eq!(
            clean_text("<c.yellow>a</c> <00:00:01.000>b &lt;3 &#x41;&#66; &bogus; &"),
            "a b <3 AB &bogus; &"
        );
        assert_eq!(vtt_time("01:02:03.456"), Some(3_723_456));
        assert_eq!(vtt_time("02:03.400"), Some(123_400));
        assert_eq!(vtt_time("100:00:00.000"), Some(360_000_000));
        // hours of one digit, as Teams writes its times
        assert_eq!(vtt_time("0:0:3.49"), Some(3_490));
        assert_eq!(vtt_time("0:0:5.0"), Some(5_000));
        for bad in [
            "00:0:00.000",
            "00:00:0.000",
            "00:00:00.00",
            "00:00:00",
            "0:00.000",
            "00:00.0000",
            "00:60.000",
            "",
        ] {
            assert_eq!(vtt_time(bad), None, "{bad}");
        }
        assert_eq!(vtt_timing("00:01.000-->00:02.000 align:end"), Ok(1_000));
        assert_eq!(vtt_timing("\x0c00:01.000\t-->  00:02.000\0x"), Ok(1_000));
        assert_eq!(vtt_timing("00:01.000 --> \u{0}00:02.000"), Err((14, 0)));
        assert_eq!(vtt_timing("\x0b00:01.000 --> 00:02.000"), Err((0, 10)));
        assert_eq!(voice_tag("<i><v Ann>x"), Some(("Ann", 6, 10)));
        assert_eq!(voice_tag("<v>x"), None);
        let teams =
            "<v 68f0e9b4-1111-2222-3333-444455556666@72f988bf-86f1-41af-91ab-2d7cd011db47>Hi";
        assert_eq!(voice_tag(teams).map(|v| v.0.len()), Some(73));
        assert_eq!(voice_tag("</i><v Ann>x"), None);
        assert_eq!(name_prefix("- Ann Lee: hi"), Some(("Ann Lee", 2, 10)));
        assert_eq!(name_prefix("So, the point is: this"), None);
        assert_eq!(name_prefix("http://x"), None);
    }

    #[test]
    fn text_folded_in_one_pass_as_split_and_joined() {
        // The general way: decode, then split at white space and join.
        fn reference_clean(s: &str) -> String {
            let mut out = String::new();
            let mut rest = s;
            while let Some(c) = rest.chars().next() {
                if c == '<' {
                    if let Some(k) = rest.find('>') {
                        rest = &rest[k + 1..];
                        continue;
                    }
                }
                if c == '{' && rest[1..].starts_with('\\') {
                    if let Some(k) = rest.find('}') {
                        rest = &rest[k + 1..];
                        continue;
                    }
                }
                if c == '&' {
                    if let Some((decoded, len)) = reference(rest) {
                        out.extend(decoded);
                        rest = &rest[len..];
                        continue;
                    }
                }
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
            out.split_whitespace().collect::<Vec<_>>().join(" ")
        }
        for s in [
            "",
            "   ",
            " a  b\tc\u{3000}d ",
            "a &nbsp; b&#8195;c &lrm; d&lrm;e",
            "&nbsp;x&nbsp;",
            "<i> Grüße </i>, <b>ça</b>\u{a0}va ",
            "{\\an8}  Kit: hi  {\\i1}x{ y",
            "<v Ann>&amp;&lt;&#x41; <unclosed",
            "日本語 <c.x>テキスト</c>  &#12354;",
            "&#10;a&#9;b&#32;",
        ] {
            assert_eq!(clean_text(s), reference_clean(s), "{s:?}");
        }
    }

    #[test]
    fn hostile_input_never_panics() {
        for src in [
            &b""[..],
            b"WEBVTT",
            b"\xef\xbb\xbfWEBVTT\n\nNOTE",
            b"WEBVTT\n\n-->",
            b"WEBVTT\n\n-->\n<v",
            b"WEBVTT\n\n-->\n<v >",
            b"WEBVTT\n\n-->\n<v.a>",
            b"WEBVTT\n\n00:00.000 --> 1\n<v \xff>x",
            b"1\n-->\nNOTE agents: ,,,\n",
            b"1\n-->\n&#xffffffff; &#0; &",
            b"1\n-->\n{\\",
            b"1\n-->\n:",
            "1\n-->\nÄ: ü\n- \n>> ".as_bytes(),
        ] {
            for kind in [Kind::Vtt, Kind::Srt] {
                let _ = parse(src, kind, &Options::default());
            }
        }
    }
}
