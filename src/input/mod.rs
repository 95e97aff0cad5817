//! Inputs: bytes in, a [`Log`](crate::model::Log) and the problems found
//! reading it out. One module per input format.
//!
//! | format | module | what it yields |
//! |---|---|---|
//! | native log | [`native`] | one log: the agent's own records |
//! | MCP trace | [`mcp`] | one log: `tools/call` requests paired with their responses |
//! | Claude Desktop MCP log | [`desktop`] | one log: the voicehook server's calls |
//! | mcp-debug recording | [`mcpdebug`] | one log: the voicehook server's calls, paired in order |
//! | MCP Inspector history | [`inspector`] | one log: each entry's call with its response |
//! | `tee` capture (two files) | [`tee`] | one log: the input half's calls, answered by the output half |
//! | transcript | [`transcript`] | one log per agent: its lines as `say`, everyone else's as events |
//! | WebVTT, SRT captions | [`captions`] | as a transcript: one log per agent |
//! | board | [`board`] | one log per board: a `status` record |
//! | prompt, skill, helper code | [`prompt`] | one log per fenced payload block, one per piece of code |
//!
//! [`Format::evidence`] says, per format, which kinds of evidence its
//! records carry; each rule declares what it needs, and the rules that
//! need more find nothing there (a test checks it against the catalogue).

pub mod board;
pub mod captions;
pub mod claude;
pub mod codex;
pub mod coverage;
pub mod desktop;
mod detect;
pub(crate) mod exchange;
pub mod gemini;
pub mod inspector;
pub mod jdom;
pub(crate) mod json;
pub mod mcp;
pub mod mcpdebug;
pub mod native;
pub mod opencode;
pub mod packed;
pub mod prompt;
pub mod server;
pub(crate) mod session;
pub mod tee;
pub mod text;
pub mod transcript;
pub mod ts;

use crate::core::meta::Evidence;
use crate::model::{Anchor, Log, Span};
use serde::{Deserialize, Serialize};

pub use detect::{detect, detect_head, is_input_json, HEAD};

/// The input formats callint reads (docs/formats.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// One JSON record per line, as an agent's client records it.
    Native,
    /// JSON-RPC 2.0 messages between an MCP client and the voicehook server.
    Mcp,
    /// The room as heard: `[hh:mm:ss] Speaker: text`, with `# key: value` headers.
    Transcript,
    /// WebVTT captions of the room: cues with `<v Speaker>` voice tags or
    /// `Speaker: text` lines.
    Vtt,
    /// SRT (SubRip) captions of the room: numbered cues of `Speaker: text`.
    Srt,
    /// One `status` payload, or a list of them.
    Board,
    /// An agent prompt or skill (markdown or text): its fenced blocks.
    Prompt,
    /// Helper code, whole.
    Code(CodeLang),
    /// An agent client's own session file (its voicehook calls, chat and
    /// tools).
    Session(Client),
    /// The MCP traffic with the voicehook server as an MCP client or a
    /// recording tool wrote it down.
    Recording(Recorder),
    /// None of the above.
    Unknown,
}

/// The languages of helper code callint reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CodeLang {
    Python,
    /// JavaScript and TypeScript.
    JavaScript,
    /// Shell scripts, with the `jq` programs in them.
    Shell,
}

/// The agent clients whose session files callint reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// Claude Code's session transcript (`~/.claude/projects/*/*.jsonl`).
    ClaudeCode,
    /// Codex CLI's rollout file (`~/.codex/sessions/**/rollout-*.jsonl`).
    Codex,
    /// An opencode session (`opencode export`, or its storage folder).
    Opencode,
    /// Gemini CLI's session recording
    /// (`~/.gemini/tmp/*/chats/session-*.jsonl`).
    Gemini,
}

impl Client {
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Codex => "codex",
            Client::Opencode => "opencode",
            Client::Gemini => "gemini",
        }
    }
}

/// The MCP clients and recording tools whose records of the traffic with
/// the voicehook server callint reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Recorder {
    /// Claude Desktop's `mcp-server-<name>.log` and `mcp.log`.
    ClaudeDesktop,
    /// The mcp-debug proxy's `--record` file.
    McpDebug,
    /// The MCP Inspector's request history.
    Inspector,
    /// A server's standard input and output, saved as two files.
    Tee,
}

impl Recorder {
    pub fn name(self) -> &'static str {
        match self {
            Recorder::ClaudeDesktop => "claude-desktop",
            Recorder::McpDebug => "mcp-debug",
            Recorder::Inspector => "inspector",
            Recorder::Tee => "tee",
        }
    }
}

impl CodeLang {
    pub fn name(self) -> &'static str {
        match self {
            CodeLang::Python => "python",
            CodeLang::JavaScript => "javascript",
            CodeLang::Shell => "shell",
        }
    }

    /// The language of a fenced block's info string or a file's extension.
    pub fn from_tag(tag: &str) -> Option<CodeLang> {
        match tag.to_ascii_lowercase().as_str() {
            "python" | "py" | "python3" | "py3" => Some(CodeLang::Python),
            "javascript" | "js" | "mjs" | "cjs" | "jsx" | "node" | "typescript" | "ts" | "mts"
            | "cts" | "tsx" => Some(CodeLang::JavaScript),
            "sh" | "bash" | "shell" | "zsh" | "console" | "shell-session" | "jq" => {
                Some(CodeLang::Shell)
            }
            _ => None,
        }
    }
}

impl Format {
    /// The formats a user can force with `--input-format`, by name.
    pub const NAMES: &'static [&'static str] = &[
        "native",
        "mcp",
        "transcript",
        "vtt",
        "srt",
        "board",
        "prompt",
        "python",
        "javascript",
        "shell",
        "claude-code",
        "codex",
        "opencode",
        "gemini",
        "claude-desktop",
        "mcp-debug",
        "inspector",
        "tee",
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::Mcp => "mcp",
            Format::Transcript => "transcript",
            Format::Vtt => "vtt",
            Format::Srt => "srt",
            Format::Board => "board",
            Format::Prompt => "prompt",
            Format::Code(l) => l.name(),
            Format::Session(c) => c.name(),
            Format::Recording(r) => r.name(),
            Format::Unknown => "unknown",
        }
    }

    /// The format a user names (`--input-format`): one of [`Format::NAMES`]
    /// or a usual alias (`jsonl`, `txt`, `json`, `md`, `py`, `js`, `ts`,
    /// `sh`, ...). Case does not matter.
    pub fn from_name(name: &str) -> Option<Format> {
        let n = name.trim().to_ascii_lowercase();
        Some(match n.as_str() {
            "native" | "log" | "jsonl" | "ndjson" => Format::Native,
            "mcp" | "mcp-trace" | "jsonrpc" | "json-rpc" => Format::Mcp,
            "transcript" | "txt" => Format::Transcript,
            "vtt" | "webvtt" => Format::Vtt,
            "srt" | "subrip" => Format::Srt,
            "board" | "json" => Format::Board,
            "prompt" | "skill" | "md" | "markdown" => Format::Prompt,
            "claude-code" | "claude" => Format::Session(Client::ClaudeCode),
            "codex" => Format::Session(Client::Codex),
            "opencode" => Format::Session(Client::Opencode),
            "gemini" | "gemini-cli" => Format::Session(Client::Gemini),
            "claude-desktop" | "desktop" => Format::Recording(Recorder::ClaudeDesktop),
            "mcp-debug" | "mcpdebug" => Format::Recording(Recorder::McpDebug),
            "inspector" | "mcp-inspector" => Format::Recording(Recorder::Inspector),
            "tee" => Format::Recording(Recorder::Tee),
            other => Format::Code(CodeLang::from_tag(other)?),
        })
    }

    /// [`Format::from_name`] with a message naming the formats, for a
    /// command-line parser (`value_parser = Format::parse_name`).
    pub fn parse_name(name: &str) -> Result<Format, String> {
        Format::from_name(name).ok_or_else(|| {
            format!(
                "unknown input format `{}`; one of: {}",
                crate::core::escape::one_line(name),
                Format::NAMES.join(", ")
            )
        })
    }

    /// What this format's records carry: a rule fires on it only when
    /// it carries all the rule needs ([`crate::core::meta::RuleMeta::needs`]),
    /// and the records are built so that the other rules find nothing.
    pub fn evidence(self) -> Evidence {
        match self {
            // A session file holds the calls, the chat, the other tools
            // and the threads, as a native log does.
            Format::Native | Format::Session(_) | Format::Unknown => Evidence::ALL,
            // A trace of function calls (and what recorders keep of one)
            // never holds the messages to the agent's own user, the other
            // tools it ran, its threads or its code. Those without times
            // (Inspector history, a `tee`) are judged as a bare trace is:
            // the time-bound rules go by the order of the calls.
            Format::Mcp | Format::Recording(_) => Evidence::ALL
                .without(Evidence::CHAT)
                .without(Evidence::THREADS)
                .without(Evidence::TOOLS)
                .without(Evidence::CODE),
            // Heard speech only (captions with cue times): no chat, tools,
            // threads, boards, decisions, labels sent, say outcomes, nor
            // when an agent joined.
            // Who is who only as far as the headers or the configuration
            // say, file by file (`Parsed::unknown_roles`).
            Format::Transcript | Format::Vtt | Format::Srt => {
                Evidence::SPEECH.and(Evidence::TIMES).and(Evidence::ROLES)
            }
            // Examples, not a call: nothing follows a join there.
            // Their prose tells an agent what to do.
            Format::Prompt => Evidence::ALL
                .without(Evidence::JOIN_FLOW)
                .and(Evidence::INSTRUCTIONS),
            // A board shows itself and its label.
            Format::Board => Evidence::BOARDS.and(Evidence::LABELS).and(Evidence::ROLES),
            Format::Code(_) => Evidence::CODE,
        }
    }
}

/// What an input yields: one log per point of view (a native log has one,
/// a transcript one per agent in it), and the problems found reading it.
#[derive(Debug, Default)]
pub struct Parsed {
    pub logs: Vec<Log>,
    /// What a prompt or skill tells an agent to do, sentence by sentence.
    pub instructions: Vec<crate::text::instructions::Instruction>,
    pub problems: Vec<Problem>,
    /// Set when heard speech does not say who is who: the rules that need
    /// the roles ([`Evidence::ROLES`]) are not run on its logs.
    pub unknown_roles: Option<UnknownRoles>,
    /// How many parts of heard speech were read (cues of captions, lines
    /// of a transcript), whoever spoke them: a file is judged by what
    /// could be read of it, and said to hold nothing only when nothing
    /// could be.
    pub read: usize,
}

/// What a transcript leaves open about who is who.
#[derive(Clone, Debug, PartialEq)]
pub struct UnknownRoles {
    /// Where it shows first: the first speaker's name.
    pub at: Anchor,
    /// Whether anything shows a voicehook call at all: a voicebot (named,
    /// or a line it spoke) or agents named in a header or the
    /// configuration.
    pub voicehook: bool,
    /// How many parts of a file without any sign of a call could not be
    /// read: its one note stands for them ([`coverage::settle`]).
    pub unread: usize,
}

/// What a reader may need beyond the bytes: who is who when the file does
/// not say, and the names agents' clients gave the voicehook MCP server
/// (from `callint.toml`).
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub human: Option<String>,
    pub voicebot: Option<String>,
    /// The agents of heard speech, when its headers do not name them.
    pub agents: Vec<String>,
    /// Server names whose tools are voicehook's, beside the servers
    /// recognised by their calls ([`server`]).
    pub servers: Vec<String>,
}

/// Read `bytes` as `format`, with the default [`Options`].
pub fn parse(format: Format, bytes: &[u8]) -> Parsed {
    parse_with(format, bytes, &Options::default())
}

/// Read `bytes` as `format`.
pub fn parse_with(format: Format, bytes: &[u8], opts: &Options) -> Parsed {
    match format {
        Format::Native => {
            let (log, problems) = native::parse(bytes);
            Parsed {
                logs: vec![log],
                problems,
                ..Parsed::default()
            }
        }
        Format::Mcp => mcp::parse(bytes),
        Format::Transcript => transcript::parse(bytes, opts),
        Format::Vtt => captions::parse(bytes, captions::Kind::Vtt, opts),
        Format::Srt => captions::parse(bytes, captions::Kind::Srt, opts),
        Format::Board => board::parse(bytes),
        Format::Prompt => prompt::parse(bytes),
        Format::Code(lang) => prompt::parse_code(bytes, lang),
        Format::Session(Client::ClaudeCode) => claude::parse(bytes, opts),
        Format::Session(Client::Codex) => codex::parse(bytes, opts),
        Format::Session(Client::Opencode) => opencode::parse(bytes, opts),
        Format::Session(Client::Gemini) => gemini::parse(bytes, opts),
        Format::Recording(Recorder::ClaudeDesktop) => desktop::parse(bytes, opts),
        Format::Recording(Recorder::McpDebug) => mcpdebug::parse(bytes, opts),
        Format::Recording(Recorder::Inspector) => inspector::parse(bytes),
        Format::Recording(Recorder::Tee) => tee::parse(bytes, opts),
        Format::Unknown => unknown(bytes),
    }
}

/// How many bytes at the start of `bytes` are a UTF-8 byte order mark
/// (3 or 0). Editors on some systems write one; every reader passes over
/// it, and spans stay offsets into the bytes as given.
pub(crate) fn bom_len(bytes: &[u8]) -> usize {
    if bytes.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    }
}

/// A file that is none of the formats: one problem at its start.
fn unknown(bytes: &[u8]) -> Parsed {
    let first = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    let end = first.min(80);
    let end = (0..=end)
        .rev()
        .find(|&k| std::str::from_utf8(&bytes[..k]).is_ok())
        .unwrap_or(0);
    let text = std::str::from_utf8(bytes).is_ok();
    let what = if text {
        "callint cannot tell what this file is: it is not a call log, an MCP trace, a transcript, a board, a prompt or helper code"
    } else {
        "callint cannot read this file: it is not UTF-8 text, so it is none of the inputs callint knows"
    };
    Parsed {
        logs: Vec::new(),
        problems: vec![Problem::new(
            Anchor::bytes(Span::new(0, end)),
            what.to_string(),
            Some(format!(
                "callint reads call logs (.jsonl, one JSON record per line), MCP traces (.jsonl), transcripts (.txt, `[hh:mm:ss] Speaker: text`), boards (.json), prompts and skills (.md, .txt) and helper code (.py, .js, .ts, .sh); name the format with --input-format {}",
                Format::NAMES.join("|")
            )),
        )],
..Parsed::default()
    }
}

/// Something in the input that breaks the log format. Reported as
/// `invalid-record`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    pub at: Anchor,
    pub message: String,
    pub help: Option<String>,
    /// Said for information (severity `info`): how the file was read, or
    /// that it is a file callint does not read, never a fault of it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub note: bool,
}

impl Problem {
    pub fn new(at: Anchor, message: String, help: Option<String>) -> Problem {
        Problem {
            at,
            message,
            help,
            note: false,
        }
    }

    /// A [`Problem`] said for information only ([`Problem::note`]).
    pub fn note(at: Anchor, message: String, help: Option<String>) -> Problem {
        Problem {
            note: true,
            ..Problem::new(at, message, help)
        }
    }
}

/// The one note for a file whose encoding was guessed ([`text::decode`]),
/// at its first line.
pub fn read_as(bytes: &[u8], encoding: &str) -> Problem {
    let end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len()).min(200);
    let end = (0..=end)
        .rev()
        .find(|&k| std::str::from_utf8(&bytes[..k]).is_ok())
        .unwrap_or(0);
    let end = if bytes[..end].ends_with(b"\r") {
        end - 1
    } else {
        end
    };
    Problem::note(
        Anchor::bytes(Span::new(0, end)),
        format!("this file is not UTF-8: read as {encoding}"),
        Some(format!(
            "the encoding was guessed from the file's bytes; findings point at the right lines of the text as read. Save the file as UTF-8 (or with a byte order mark) if {encoding} is not its encoding"
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for n in Format::NAMES {
            assert_eq!(Format::from_name(n).unwrap().name(), *n);
        }
        assert_eq!(
            Format::from_name("TS"),
            Some(Format::Code(CodeLang::JavaScript))
        );
        assert_eq!(Format::from_name("jsonl"), Some(Format::Native));
        assert_eq!(Format::from_name("yaml"), None);
        assert_eq!(Format::from_name(""), None);
    }
}
