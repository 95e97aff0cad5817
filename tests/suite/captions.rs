//! WebVTT and SRT captions, and who is who in a transcript that does not
//! say: findings at the cue's text line, the human named in callint.toml.

use crate::common;

use callint::lint::config::Config;
use callint::lint::engine::{FileResult, Linter};
use callint::report::{resolve, LineIndex};

fn lint_with(config: &str, name: &str, src: &str) -> FileResult {
    let config = Config::parse(config, None).expect("a valid configuration");
    Linter::new(&config, None, &[])
        .unwrap()
        .lint(name, src.as_bytes().to_vec())
}

/// `(line, rule, agent, text pointed at)` of every finding.
fn found(f: &FileResult) -> Vec<(usize, String, String, String)> {
    let idx = LineIndex::new(&f.source);
    f.diagnostics
        .iter()
        .map(|d| {
            let at = resolve(&f.source, &idx, &d.primary.at);
            let text = String::from_utf8_lossy(&f.source[at.span.start..at.span.end]);
            (
                at.line,
                d.rule.to_string(),
                d.agent.clone().unwrap_or_default(),
                text.into_owned(),
            )
        })
        .collect()
}

/// A call in which Ines is the human, without a header that says so.
const HEADERLESS: &str = "[10:00:00] Kit: Hi, this is Kit, I'm in and listening.\n[10:00:02] Bolt: Hi, this is Bolt, I'm in and listening.\n[10:00:10] Ines: Can you check the build logs for me?\n[10:00:13] Kit: On it, one moment.\n[10:00:20] Ines: Kit, how long will it take?\n[10:00:21] Bolt: It takes ten minutes.\n";

/// What is right to find there once Ines is known to be the human: Kit's
/// bare acknowledgement, Bolt speaking for the addressed Kit.
fn right(got: &[(usize, String, String, String)]) -> bool {
    let short: Vec<(usize, &str, &str)> = got
        .iter()
        .map(|g| (g.0, g.1.as_str(), g.2.as_str()))
        .collect();
    short
        == [
            (4, "ack-not-addressed", "Kit"),
            (6, "spoke-for-addressed", "Bolt"),
        ]
}

#[test]
fn the_human_named_in_the_configuration_is_the_human_of_a_headerless_transcript() {
    // without it, nothing says who is who: one note, and no rule judges
    // Ines (or anyone) as an agent on a guess
    let without = found(&lint_with("", "call.txt", HEADERLESS));
    let rules: Vec<&str> = without.iter().map(|g| g.1.as_str()).collect();
    assert_eq!(rules, ["unknown-roles"], "{without:#?}");
    let with = found(&lint_with("human = \"Ines\"\n", "call.txt", HEADERLESS));
    assert!(right(&with), "{with:#?}");
    // the same from captions that do not say either
    let mut vtt = String::from("WEBVTT\n");
    for l in HEADERLESS.lines() {
        let (stamp, rest) = l[1..].split_once("] ").unwrap();
        vtt.push_str(&format!("\n{stamp}.000 --> {stamp}.900\n{rest}\n"));
    }
    let with = found(&lint_with("human = \"Ines\"\n", "call.vtt", &vtt));
    // the same findings, at the cues' text lines
    let lines: Vec<usize> = with.iter().map(|g| g.0).collect();
    assert_eq!(lines, [13, 19], "{with:#?}");
    let moved: Vec<_> = with
        .into_iter()
        .zip([4, 6])
        .map(|(g, l)| (l, g.1, g.2, g.3))
        .collect();
    assert!(right(&moved), "{moved:#?}");
    let without = found(&lint_with("", "call.vtt", &vtt));
    assert!(
        without.len() == 1 && without[0].1 == "unknown-roles",
        "{without:#?}"
    );
}

const LONG: &str = "I think the relay looked broken because the helper read only part of each event so the lines of the other agents looked missing and nobody checked the fields first before reporting a bug to everyone";

#[test]
fn zoom_style_vtt_findings_point_at_the_cue_text() {
    let vtt = format!(
        "WEBVTT\n\nNOTE lang: en\nNOTE human: Oliver Smith\nNOTE agents: Kit\n\n1\n00:00:01.000 --> 00:00:03.000\nKit: Hi, this is Kit, I'm in and listening.\n\n2\n00:00:05.000 --> 00:00:08.000\nOliver Smith: Kit, what happened with the relay?\n\n3\n00:00:06.000 --> 00:00:20.000\nKit: {LONG}\n"
    );
    let f = lint_with("", "zoom.vtt", &vtt);
    let got = found(&f);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0].0, 17);
    assert_eq!(got[0].1, "long-say");
    assert_eq!(got[0].2, "Kit");
    assert_eq!(got[0].3, LONG);
}

#[test]
fn voice_tag_vtt_and_srt_give_the_same_findings() {
    let vtt = format!(
        "WEBVTT\n\nNOTE\nlang: en\nhuman: Oliver\nagents: Kit\n\n00:00:01.000 --> 00:00:03.000\n<v Kit>Hi, this is Kit, I'm in and listening.</v>\n\n00:00:05.000 --> 00:00:08.000\n<v Oliver>Kit, what happened with the relay?</v>\n\n00:00:06.000 --> 00:00:20.000\n<v Kit>{LONG}</v>\n"
    );
    let srt = format!(
        "1\n00:00:00,000 --> 00:00:00,000\nNOTE lang: en\nNOTE human: Oliver\nNOTE agents: Kit\n\n2\n00:00:01,000 --> 00:00:03,000\nKit: Hi, this is Kit, I'm in and listening.\n\n3\n00:00:05,000 --> 00:00:08,000\nOliver: Kit, what happened\nwith the relay?\n\n4\n00:00:06,000 --> 00:00:20,000\nKit: {LONG}\n"
    );
    let v = found(&lint_with("", "a.vtt", &vtt));
    let s = found(&lint_with("", "a.srt", &srt));
    assert_eq!(v.len(), 1, "{v:#?}");
    assert_eq!((v[0].0, v[0].1.as_str()), (15, "long-say"));
    assert!(v[0].3.starts_with(LONG));
    assert_eq!(s.len(), 1, "{s:#?}");
    assert_eq!(
        (s[0].0, s[0].1.as_str(), s[0].3.as_str()),
        (18, "long-say", LONG)
    );
}

#[test]
fn the_cli_reads_captions_with_the_human_from_callint_toml() {
    let dir = common::scratch();
    std::fs::write(dir.join("callint.toml"), "human = \"Ines\"\n").unwrap();
    std::fs::create_dir_all(dir.join("calls")).unwrap();
    let srt = "1\n00:00:00,000 --> 00:00:02,000\nKit: Hi, this is Kit, I'm in and listening.\n\n2\n00:00:02,000 --> 00:00:04,000\nBolt: Hi, this is Bolt, I'm in and listening.\n\n3\n00:00:10,000 --> 00:00:13,000\nInes: Can you check the build logs for me?\n";
    std::fs::write(dir.join("calls/room.srt"), srt).unwrap();
    let o = common::callint_in(&dir, &["check", "calls", "--format", "concise"]);
    let out = common::stdout(&o);
    assert!(out.contains("1 file"), "{out}");
    assert!(!out.contains("invalid-record"), "{out}");
    assert_eq!(o.status.code(), Some(0), "{out}");
    // without the configuration, the file says once that it does not
    // know, and the run does not fail
    let o = common::callint_in(
        &dir,
        &["check", "calls", "--no-config", "--format", "concise"],
    );
    let out = common::stdout(&o);
    assert!(
        out.contains("calls/room.srt:3:1: info[unknown-roles]"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(0), "{out}");
}

/// `check --format concise` of `name` holding `text`, in a fresh folder,
/// without any configuration: its exit code and its output.
fn check_file(name: &str, text: &str) -> (Option<i32>, String) {
    let dir = common::scratch();
    std::fs::write(dir.join(name), text).unwrap();
    let o = common::callint_in(
        &dir,
        &[
            "check",
            "--no-config",
            "--no-cache",
            name,
            "--format",
            "concise",
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
    (o.status.code(), common::stdout(&o))
}

/// Teams and Stream write a user id and a tenant id in every voice tag,
/// and times without leading zeros: each cue is read, its speaker the
/// whole id.
#[test]
fn teams_voice_tags_name_their_speaker_whatever_its_characters() {
    let human = "68f0e9b4-1111-2222-3333-444455556666@72f988bf-86f1-41af-91ab-2d7cd011db47";
    let vtt = format!(
        "WEBVTT\n\nNOTE human: {human}\nNOTE agents: Kit\nNOTE lang: en\n\n68f0e9b4-1111-2222-3333-444455556666/17-0\n0:0:1.490 --> 0:0:3.810\n<v Kit>Hi, this is Kit, I'm in and listening.</v>\n\n68f0e9b4-1111-2222-3333-444455556666/18-0\n0:0:5.0 --> 0:0:8.0\n<v {human}>Kit, what happened with the relay?</v>\n\n68f0e9b4-1111-2222-3333-444455556666/19-0\n0:0:9.100 --> 0:0:20.000\n<v Kit>{LONG}</v>\n"
    );
    let (code, out) = check_file("teams.vtt", &vtt);
    assert!(!out.contains("invalid-record"), "{out}");
    assert!(out.contains("teams.vtt:17:8: warning[long-say]"), "{out}");
    assert_eq!(code, Some(0), "{out}");
    // A voice tag's name of thousands of characters is said once, not
    // taken for a speaker.
    let vtt = format!(
        "WEBVTT\n\nNOTE agents: Kit\n\n00:01.000 --> 00:02.000\n<v {}>Kit, hi\n",
        "x".repeat(5_000)
    );
    let (_, out) = check_file("long.vtt", &vtt);
    assert!(
        out.contains("voice tag names a speaker of 5000 characters"),
        "{out}"
    );
    assert!(out.len() < 2_000, "{out}");
}

/// A bot writes a cue of several paragraphs, blank lines between them:
/// the paragraphs after the first are the cue's text, not blocks of their
/// own, and a cue after them is read as one.
#[test]
fn srt_cue_text_may_hold_blank_lines() {
    let srt = format!(
        "1\n00:00:00,000 --> 00:00:00,000\nNOTE lang: en\nNOTE human: Oliver\nNOTE agents: Kit\n\n2\n00:00:01,000 --> 00:00:03,000\nKit: Hi, this is Kit, I'm in and listening.\n\n3\n00:00:05,000 --> 00:00:08,000\nOliver: Kit, what happened with the relay?\n\n4\n00:00:09,000 --> 00:00:20,000\nKit: Here is what I found.\n\n{LONG}\n\nThat is all.\n\n5\n00:00:21,000 --> 00:00:22,000\nOliver: Thanks.\n"
    );
    let (code, out) = check_file("bot.srt", &srt);
    assert!(!out.contains("neither a cue nor a note"), "{out}");
    assert!(!out.contains("invalid-record"), "{out}");
    assert!(out.contains("bot.srt:17:6: warning[long-say]"), "{out}");
    assert_eq!(code, Some(0), "{out}");
}

/// In a meeting with no voicebot (no line of it, none named), "data" is a
/// word: a sentence opening "Data, ..." asks no Delta; where the header
/// names the voicebot, the same words in the addressing place do.
#[test]
fn data_is_delta_only_where_there_is_a_voicebot() {
    let lines = "[10:00:00] Kit: Hi, this is Kit, I'm in and listening.\n[10:00:05] Ines: Kit, what is your role here?\n[10:00:08] Kit: Data, scientist, data science engineer, that kind of work.\n";
    let header = "# human: Ines\n# agents: Kit\n# lang: en\n";
    let (_, out) = check_file("meeting.txt", &format!("{header}{lines}"));
    assert!(!out.contains("asked-delta"), "{out}");
    let (_, out) = check_file("call.txt", &format!("{header}# voicebot: Delta\n{lines}"));
    assert!(out.contains("call.txt:7:"), "{out}");
    assert!(out.contains("asked-delta"), "{out}");
}

/// Two people whose names differ in a whole word are two names: a
/// meeting with "Rohit Raj" and "Rohit Das" has no ambiguous labels, while
/// "Kit" and "Kit2" still are alike.
#[test]
fn names_that_differ_in_a_whole_word_are_not_alike() {
    let room = "# human: Ines\n# agents: Kit, Bolt\n# lang: en\n[10:00:00] Kit: Hi, this is Kit, I am in and listening.\n[10:00:02] Bolt: Hi, this is Bolt, I am in and listening.\n[10:00:06] Rohit Raj: Hello all.\n[10:00:08] Rohit Das: Hello from me too.\n";
    let (_, out) = check_file("room.txt", room);
    assert!(!out.contains("ambiguous-labels"), "{out}");
    let (_, out) = check_file("room.txt", &room.replace("Rohit Das", "Kit2"));
    assert!(out.contains("ambiguous-labels"), "{out}");
}

/// Two names alike are one finding per call: a transcript is linted from
/// every agent's side, and each side shows the pair in its own words (this
/// agent, an agent) and, for an agent that spoke late, at a later line.
/// Each pair is reported once, where the later name first shows up.
#[test]
fn a_pair_of_names_alike_is_one_finding_per_call() {
    let room = "# human: Ines\n# agents: Kit, Bolt, Juno\n# lang: en\n[10:00:00] Kit: Hi, this is Kit, I am in and listening.\n[10:00:02] Bolt: Hi, this is Bolt, I am in and listening.\n[10:00:04] Juno: Hi, this is Juno, I am in and listening.\n[10:00:06] Kit2: Hello all, this is Kit2.\n[10:00:08] Ines: Welcome. Let us look at the release.\n[10:00:10] Kit: The release notes are on my board.\n[10:00:12] Bolt 2: Hello from Bolt 2.\n[10:00:14] Bolt: The build is green.\n[10:00:16] Kit2: I can take the docs.\n";
    let (_, out) = check_file("room.txt", room);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("ambiguous-labels"))
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("room.txt:7:"), "{out}");
    assert!(lines[1].starts_with("room.txt:10:"), "{out}");
}

/// `check --format concise` of `name` holding `bytes` in a fresh folder,
/// without any configuration: its exit code and each finding as
/// `line:column: severity[rule] message`, without the file's name.
fn findings_of(name: &str, bytes: &[u8]) -> (Option<i32>, Vec<String>) {
    let dir = common::scratch();
    std::fs::write(dir.join(name), bytes).unwrap();
    let o = common::callint_in(
        &dir,
        &[
            "check",
            "--no-config",
            "--no-cache",
            name,
            "--format",
            "concise",
        ],
    );
    let out = common::stdout(&o);
    let prefix = format!("{name}:");
    let lines = out
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(str::to_string)
        .collect();
    (o.status.code(), lines)
}

/// `text` with its line ends as `end` gives them, by the line's number.
fn with_line_ends(text: &str, end: impl Fn(usize) -> &'static str) -> Vec<u8> {
    let mut out = String::new();
    for (k, l) in text.split_inclusive('\n').enumerate() {
        match l.strip_suffix('\n') {
            Some(l) => {
                out.push_str(l.strip_suffix('\r').unwrap_or(l));
                out.push_str(end(k));
            }
            None => out.push_str(l),
        }
    }
    out.into_bytes()
}

/// Text in UTF-16 or UTF-32, with its byte order mark.
fn utf16(text: &str, le: bool) -> Vec<u8> {
    let mut out = if le {
        vec![0xff, 0xfe]
    } else {
        vec![0xfe, 0xff]
    };
    for u in text.encode_utf16() {
        out.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
    }
    out
}

fn utf32(text: &str, le: bool) -> Vec<u8> {
    let mut out = if le {
        vec![0xff, 0xfe, 0, 0]
    } else {
        vec![0, 0, 0xfe, 0xff]
    };
    for c in text.chars() {
        let u = c as u32;
        out.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
    }
    out
}

/// The corpus's captions, transcript and prompt read the same whatever
/// their line ends (LF, CRLF, a bare CR, all three mixed) and whatever
/// encoding their byte order mark names: the same findings at the same
/// lines; in UTF-8, at the same columns too, as the offsets are those of
/// the file as written.
#[test]
fn line_ends_and_byte_order_marks_change_no_finding() {
    for file in [
        "corpus/seed-incident-vtt/transcript.vtt",
        "corpus/seed-incident-srt/transcript.srt",
        "corpus/seed-incident-transcript/transcript.txt",
        "corpus/prompts/bad-prompt.md",
    ] {
        let text = std::fs::read_to_string(common::root().join(file)).unwrap();
        let name = std::path::Path::new(file)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let (code, want) = findings_of(name, text.as_bytes());
        assert!(want.len() >= 3, "{file}: {want:#?}");
        assert!(
            !want.iter().any(|l| l.contains("invalid-record")),
            "{file}: {want:#?}"
        );
        let ends: [(&str, Vec<u8>); 4] = [
            ("LF", with_line_ends(&text, |_| "\n")),
            ("CRLF", with_line_ends(&text, |_| "\r\n")),
            ("CR", with_line_ends(&text, |_| "\r")),
            (
                "mixed",
                with_line_ends(&text, |k| ["\r", "\r\n", "\n"][k % 3]),
            ),
        ];
        for (what, bytes) in ends {
            let got = findings_of(name, &bytes);
            assert_eq!(got, (code, want.clone()), "{file} with {what} line ends");
        }
        let line = |l: &String| l.split(':').next().unwrap().to_string();
        let want_lines: Vec<String> = want.iter().map(line).collect();
        let cr = String::from_utf8(with_line_ends(&text, |_| "\r")).unwrap();
        let marked: [(&str, Vec<u8>); 5] = [
            (
                "UTF-8 BOM",
                [&b"\xef\xbb\xbf"[..], text.as_bytes()].concat(),
            ),
            ("UTF-16LE", utf16(&text, true)),
            ("UTF-16BE with bare CRs", utf16(&cr, false)),
            ("UTF-32LE", utf32(&text, true)),
            ("UTF-32BE", utf32(&text, false)),
        ];
        for (what, bytes) in marked {
            let (c, got) = findings_of(name, &bytes);
            assert_eq!(c, code, "{file} in {what}: {got:#?}");
            let got_lines: Vec<String> = got.iter().map(line).collect();
            assert_eq!(got_lines, want_lines, "{file} in {what}: {got:#?}");
        }
    }
}

/// A file in a legacy encoding is decoded, as its bytes suggest, and said
/// once: one note at `info`, never one error a line; the findings are
/// those of the same file in UTF-8, at the same lines.
#[test]
fn a_legacy_encoding_is_guessed_and_said_once() {
    let srt = format!(
        "1\r\n00:00:00,000 --> 00:00:00,000\r\nNOTE lang: en\r\nNOTE human: Renée\r\nNOTE agents: Kit\r\n\r\n2\r\n00:00:01,000 --> 00:00:03,000\r\nKit: Hi, this is Kit, I'm in and listening.\r\n\r\n3\r\n00:00:05,000 --> 00:00:08,000\r\nRenée: Kit, ça va? Qu'est-ce qui s'est passé avec le relais, très vite?\r\n\r\n4\r\n00:00:06,000 --> 00:00:20,000\r\nKit: {LONG}\r\n"
    );
    let (code, utf8) = findings_of("call.srt", srt.as_bytes());
    let (bytes, _, lossy) = encoding_rs::WINDOWS_1252.encode(&srt);
    assert!(!lossy);
    let (legacy_code, legacy) = findings_of("call.srt", &bytes);
    assert_eq!(legacy_code, code, "{legacy:#?}");
    assert_eq!(legacy.len(), utf8.len() + 1, "{legacy:#?}");
    assert_eq!(
        legacy[0],
        "1:1: info[invalid-record] this file is not UTF-8: read as windows-1252"
    );
    assert_eq!(&legacy[1..], &utf8[..]);
    assert!(
        utf8.iter()
            .any(|l| l.starts_with("17:6: warning[long-say]")),
        "{utf8:#?}"
    );
    // A long file of many lines with such bytes: still one note.
    let long: String = (0..2_000)
        .map(|k| format!("{k}\n00:{:02}:{:02},000 --> 00:{:02}:{:02},500\nRenée: Déjà vu numéro {k}, très bien.\n\n", k / 60 % 60, k % 60, k / 60 % 60, k % 60))
        .collect();
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&long);
    let (_, got) = findings_of("long.srt", &bytes);
    let notes = got
        .iter()
        .filter(|l| l.contains("read as windows-1252"))
        .count();
    assert_eq!(notes, 1, "{got:#?}");
    assert!(
        !got.iter()
            .any(|l| l.contains("UTF-8") && !l.contains("read as")),
        "{got:#?}"
    );
    assert!(got.len() <= 2, "{got:#?}");
}

/// The WebVTT file-parsing tests of the web-platform-tests, as
/// w3c/webvtt.js keeps them (`tests/data/webvtt/`, its README says where
/// from and under which licence): each file with the number of cues a
/// browser reads from it, as its test
/// (`tests/data/webvtt/file-parsing/<name>.js`) asserts
/// (`assert_equals(cues.length, N)`), and whether every block of it is
/// well formed (a cue, a note, a style sheet or a region; `false` for the
/// files that test cues a browser drops).
const WPT_FILE_PARSING: &[(&str, Option<usize>, bool)] = &[
    ("arrows", Some(6), false),
    ("header-garbage", Some(1), true),
    ("header-space", Some(1), true),
    ("header-tab", Some(1), true),
    ("header-timings", Some(1), true),
    ("ids", Some(5), true),
    ("newlines", Some(4), true),
    ("nulls", Some(7), false),
    ("regions-id", Some(4), true),
    ("regions-lines", Some(13), true),
    ("regions-old", Some(2), true),
    ("regions-regionanchor", Some(20), true),
    ("regions-scroll", Some(6), true),
    ("regions-viewportanchor", Some(20), true),
    ("settings-align", Some(13), true),
    ("settings-line", Some(46), true),
    ("settings-multiple", Some(2), true),
    ("settings-position", Some(22), true),
    ("settings-region", Some(9), true),
    ("settings-size", Some(16), true),
    ("settings-vertical", Some(8), true),
    ("signature-bom", Some(0), true),
    ("signature-no-newline", Some(0), true),
    ("signature-space-no-newline", Some(0), true),
    ("signature-space", Some(0), true),
    ("signature-tab-no-newline", Some(0), true),
    ("signature-tab", Some(0), true),
    ("signature-timings", Some(0), true),
    // Its test checks the style sheets only, not the cues.
    ("stylesheets", None, true),
    ("timings-60", Some(2), false),
    ("timings-eof", Some(0), false),
    ("timings-garbage", Some(0), false),
    ("timings-negative", Some(4), true),
    ("timings-omitted-hours", Some(3), true),
    ("timings-too-long", Some(2), false),
    ("timings-too-short", Some(2), false),
    ("whitespace-chars", Some(3), false),
];

fn wpt_file(name: &str) -> Vec<u8> {
    std::fs::read(
        common::root()
            .join("tests/data/webvtt/file-parsing")
            .join(format!("{name}.vtt")),
    )
    .unwrap()
}

/// callint reads as many cues from each conformance file as a browser
/// does (its expectation, above), and the table lists every file.
#[test]
fn webvtt_conformance_files_give_the_cues_their_tests_expect() {
    use callint::input::{captions, text, Options};
    let dir = common::root().join("tests/data/webvtt/file-parsing");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".vtt").map(str::to_string))
        .collect();
    names.sort();
    let mut listed: Vec<&str> = WPT_FILE_PARSING.iter().map(|w| w.0).collect();
    listed.sort_unstable();
    assert_eq!(names, listed);
    let mut wrong = Vec::new();
    for (name, want, _) in WPT_FILE_PARSING {
        let (bytes, _) = text::decode_owned(wpt_file(name));
        let p = captions::parse(&bytes, captions::Kind::Vtt, &Options::default());
        if let Some(n) = want {
            if p.read != *n {
                wrong.push(format!(
                    "{name}: {} cues, expected {n}; {:?}",
                    p.read, p.problems
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Through the binary, each conformance file (none of which shows a
/// call) gets at most one finding: a well-formed one, and one with some
/// cues read, the one note at `info` that nothing there is a call (which
/// counts what could not be read); one with no cue read, one error that
/// says so. No file fails the run but those.
#[test]
fn webvtt_conformance_files_get_one_note_and_valid_ones_no_error() {
    let dir = common::scratch();
    for (name, _, _) in WPT_FILE_PARSING {
        std::fs::write(dir.join(format!("{name}.vtt")), wpt_file(name)).unwrap();
    }
    let o = common::callint_in(
        &dir,
        &[
            "check",
            "--no-config",
            "--no-cache",
            ".",
            "--format",
            "concise",
        ],
    );
    let out = common::stdout(&o);
    for (name, want, clean) in WPT_FILE_PARSING {
        let prefix = format!("./{name}.vtt:");
        let mine: Vec<&str> = out.lines().filter(|l| l.starts_with(&prefix)).collect();
        assert!(mine.len() <= 1, "{name}: {mine:#?}");
        if *clean {
            assert!(
                mine.iter().all(
                    |l| l.contains(": info[unknown-roles]") && !l.contains("could not be read")
                ),
                "{name}: {mine:#?}"
            );
        } else if *want == Some(0) {
            assert!(
                mine.len() == 1 && mine[0].contains(": error[invalid-record]"),
                "{name}: {mine:#?}"
            );
        } else {
            assert!(
                mine.len() == 1
                    && mine[0].contains(": info[unknown-roles]")
                    && mine[0].contains("could not be read"),
                "{name}: {mine:#?}"
            );
        }
    }
    let errors = out.lines().filter(|l| l.contains(": error[")).count();
    assert_eq!(errors, 2, "{out}");
}

/// What the WebVTT parser skips as a browser does (a style sheet with a
/// blank line in it, the `Region:` lines of the old header) is no
/// finding; a block that is no cue (a cue's text after a blank line) is
/// one finding at its place, and the cues around it are read and judged.
#[test]
fn a_file_is_judged_by_what_could_be_read() {
    let head = "WEBVTT\nRegion: id=fred width=40% lines=3 regionanchor=0%,100% viewportanchor=10%,90% scroll=up\nRegion: id=bill width=40% lines=3 regionanchor=100%,100% viewportanchor=90%,90% scroll=up\n\nSTYLE\n::cue {\n  color: yellow;\n}\n\n::cue(v[voice=\"Kit\"]) {\n  color: cyan;\n}\n\nNOTE human: Oliver\nNOTE agents: Kit\nNOTE lang: en\n\n";
    let cues = format!(
        "00:00:01.000 --> 00:00:03.000 region:fred\n<v Kit>Hi, this is Kit, I'm in and listening.\n\n00:00:05.000 --> 00:00:08.000\n<v Oliver>Kit, what happened with the relay?\n\n00:00:09.000 --> 00:00:20.000\n<v Kit>{LONG}\n"
    );
    let clean = format!("{head}{cues}");
    let (code, out) = check_file("call.vtt", &clean);
    assert!(!out.contains("invalid-record"), "{out}");
    assert!(out.contains("call.vtt:25:8: warning[long-say]"), "{out}");
    assert_eq!(code, Some(0), "{out}");
    // a blank line inside a cue: the paragraph after it is one finding,
    // and the rest is read and judged
    let broken = clean.replace(
        "<v Oliver>Kit, what happened with the relay?\n",
        "<v Oliver>Kit, what happened\n\nwith the relay?\n",
    );
    let (code, out) = check_file("call.vtt", &broken);
    let invalid: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("invalid-record"))
        .collect();
    assert_eq!(invalid.len(), 1, "{out}");
    assert!(
        invalid[0].starts_with(
            "call.vtt:24:1: error[invalid-record] this block is neither a cue nor a note"
        ),
        "{out}"
    );
    assert!(out.contains("call.vtt:27:8: warning[long-say]"), "{out}");
    assert!(!out.contains("no record could be read"), "{out}");
    assert_eq!(code, Some(1), "{out}");
    // a cue whose time cannot be read: the same, at its time
    let (_, out) = check_file(
        "call.vtt",
        &clean.replace("00:00:05.000 -->", "00:00:5.000 -->"),
    );
    let invalid: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("invalid-record"))
        .collect();
    assert_eq!(invalid.len(), 1, "{out}");
    assert!(
        invalid[0].contains("`00:00:5.000` is not a cue time"),
        "{out}"
    );
    assert!(out.contains("warning[long-say]"), "{out}");
    // in SRT, with bare carriage returns
    let srt = format!("1\r00:00:00,000 --> 00:00:00,000\rNOTE human: Oliver\rNOTE agents: Kit\rNOTE lang: en\r\r2\r00:00:01,000 --> 00:00:03,000\rKit: Hi, this is Kit, I'm in and listening.\r\r3\r00:00:09,000 --> 00:00:20,000\rKit: {LONG}\r");
    let (code, out) = check_file("call.srt", &srt);
    assert!(!out.contains("invalid-record"), "{out}");
    assert!(out.contains("call.srt:13:6: warning[long-say]"), "{out}");
    assert_eq!(code, Some(0), "{out}");
}

/// Captions and a transcript that show no call at all (no voicebot, no
/// agent, no human named) get one note at `info`, whatever could not be
/// read in them, and the run passes; a file of which nothing could be
/// read gets one error, and no note beside it.
#[test]
fn no_sign_of_a_call_is_one_note() {
    let meeting = "WEBVTT\n\nSTYLE\n::cue { color: lime }\n\n00:00:01.000 --> 00:00:03.000\n<v Ann>Good morning, everyone.\n\n00:00:04.000 --> 00:00:06.000\nwelcome to the weekly review\n\nnot a cue at all\n\n00:00:0x.000 --> 00:00:08.000\n<v Bo>Thanks, Ann.\n";
    let (code, out) = check_file("meeting.vtt", meeting);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("meeting.vtt:"))
        .collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(
        lines[0].starts_with("meeting.vtt:7:4: info[unknown-roles]"),
        "{out}"
    );
    assert!(
        lines[0].contains("nor the 2 parts that could not be read"),
        "{out}"
    );
    assert_eq!(code, Some(0), "{out}");
    let talk = "[10:00:01] Ann: Good morning, everyone.\n[10:00:03] Bo: Thanks, Ann.\n[xx:yy] Ann: On to the review.\nand then some prose\n";
    let (code, out) = check_file("talk.txt", talk);
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("talk.txt:")).collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].contains("info[unknown-roles]"), "{out}");
    assert!(lines[0].contains("nor the 2 parts"), "{out}");
    assert_eq!(code, Some(0), "{out}");
    // nothing read: one error, no note
    let (code, out) = check_file(
        "none.vtt",
        "WEBVTT\n\n00:0x.000 --> 00:01.000\nhi\n\n00:0y.000 --> 00:02.000\nho\n",
    );
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("none.vtt:")).collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(
        lines[0].contains("error[invalid-record] no record could be read"),
        "{out}"
    );
    assert_eq!(code, Some(1), "{out}");
}
