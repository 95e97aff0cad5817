//! Where things are in a source file: byte ranges, paths into a JSON
//! value, and the anchor of a finding (a path inside a range).

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch.
pub type Ms = i64;

/// A byte range in a source file.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One step of a path into a JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seg {
    Key(&'static str),
    Index(u32),
    /// The JSON text inside the string here: a client that stores a
    /// call's arguments or answer as a JSON string (`"{\"text\":..}"`).
    Json,
}

/// A short path into a JSON document, such as `args.open[2]`. Fixed size and
/// `Copy`, so keeping one per text costs no allocation; each step is packed
/// in two bytes (a key as its number in [`keys`], an index as itself), as
/// a log keeps a path for every text it holds.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Path {
    segs: [u16; Path::MAX],
    /// The number of steps; [`SEALED`] set once a step could not be kept.
    len: u8,
}

/// A path is kept as its steps, each a JSON value: a key as its string, an
/// index as its number, a step into a JSON text as `null`, and `false` last
/// when the path was cut ([`Path::to_steps`]). The numbers keys are packed
/// as are only good inside one process.
impl Serialize for Path {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let segs = self.segs();
        let sealed = self.len & SEALED != 0;
        let mut seq = s.serialize_seq(Some(segs.len() + usize::from(sealed)))?;
        for seg in segs.iter() {
            match seg {
                Seg::Key(k) => seq.serialize_element(k)?,
                Seg::Index(n) => seq.serialize_element(n)?,
                Seg::Json => seq.serialize_element(&())?,
            }
        }
        if sealed {
            seq.serialize_element(&false)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Path {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Path, D::Error> {
        use serde::de::{DeserializeSeed, Error, SeqAccess, Visitor};
        use std::fmt;
        /// The path so far, taking one step more.
        struct Step(Path);
        impl<'de> DeserializeSeed<'de> for Step {
            type Value = Path;
            fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Path, D::Error> {
                d.deserialize_any(self)
            }
        }
        impl<'de> Visitor<'de> for Step {
            type Value = Path;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key, an index, null or false")
            }
            fn visit_str<E: Error>(self, k: &str) -> Result<Path, E> {
                Ok(self.0.key(k))
            }
            fn visit_u64<E: Error>(self, n: u64) -> Result<Path, E> {
                Ok(self.0.index(usize::try_from(n).unwrap_or(usize::MAX)))
            }
            fn visit_unit<E: Error>(self) -> Result<Path, E> {
                Ok(self.0.json())
            }
            fn visit_bool<E: Error>(self, _: bool) -> Result<Path, E> {
                Ok(self.0.push(None))
            }
        }
        struct Steps;
        impl<'de> Visitor<'de> for Steps {
            type Value = Path;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the steps of a path")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Path, A::Error> {
                let mut p = Path::ROOT;
                while let Some(next) = seq.next_element_seed(Step(p))? {
                    p = next;
                }
                Ok(p)
            }
        }
        d.deserialize_seq(Steps)
    }
}

/// The high bit of a packed step marks a key.
const KEY_BIT: u16 = 1 << 15;
/// The packed step [`Seg::Json`]: the one key number no key gets.
const JSON_STEP: u16 = KEY_BIT | (KEY_BIT - 1);
/// Set in a path's length when a step was too deep or an index too large
/// to keep: the path then ends at the last step it could keep.
const SEALED: u8 = 1 << 7;

impl Path {
    pub const MAX: usize = 7;
    pub const ROOT: Path = Path {
        segs: [0; Path::MAX],
        len: 0,
    };

    fn push(mut self, packed: Option<u16>) -> Path {
        // A path deeper than MAX, or through an index past what a step
        // holds, points at its deepest kept ancestor, which still
        // underlines the right region.
        let len = (self.len & !SEALED) as usize;
        match packed {
            Some(p) if self.len & SEALED == 0 && len < Path::MAX => {
                self.segs[len] = p;
                self.len += 1;
            }
            _ => self.len |= SEALED,
        }
        self
    }
    pub fn key(self, k: &str) -> Path {
        let id = keys::id(k);
        self.push(
            u16::try_from(id)
                .ok()
                .filter(|&i| i < KEY_BIT - 1)
                .map(|i| KEY_BIT | i),
        )
    }
    /// Into the JSON text held by the string at this path.
    pub fn json(self) -> Path {
        self.push(Some(JSON_STEP))
    }
    pub fn index(self, i: usize) -> Path {
        self.push(u16::try_from(i).ok().filter(|&i| i < KEY_BIT))
    }
    /// The steps, first to last.
    pub fn segs(&self) -> Segs {
        let len = (self.len & !SEALED) as usize;
        let mut out = Segs {
            segs: [Seg::Index(0); Path::MAX],
            len,
        };
        for (o, &p) in out.segs.iter_mut().zip(&self.segs[..len]) {
            *o = if p == JSON_STEP {
                Seg::Json
            } else if p & KEY_BIT != 0 {
                Seg::Key(keys::name(u32::from(p & !KEY_BIT)))
            } else {
                Seg::Index(u32::from(p))
            };
        }
        out
    }
    pub fn is_root(&self) -> bool {
        self.len & !SEALED == 0
    }

    /// The path as text steps, to store it: `.name` a key, `[n]` an index,
    /// `<json>` a step into a JSON text, and a last `!` when it was cut.
    pub fn to_steps(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .segs()
            .iter()
            .map(|s| match s {
                Seg::Key(k) => format!(".{k}"),
                Seg::Index(n) => format!("[{n}]"),
                Seg::Json => "<json>".to_string(),
            })
            .collect();
        if self.len & SEALED != 0 {
            out.push("!".into());
        }
        out
    }

    /// The path [`Path::to_steps`] wrote.
    pub fn from_steps(steps: &[String]) -> Path {
        let mut p = Path::ROOT;
        for s in steps {
            p = if let Some(k) = s.strip_prefix('.') {
                p.key(k)
            } else if s == "<json>" {
                p.json()
            } else if s == "!" {
                p.push(None)
            } else {
                let n = s
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse::<usize>()
                    .unwrap_or(usize::MAX);
                p.index(n)
            };
        }
        p
    }
    /// The path of the value holding this one (the root's is the root).
    pub fn parent(mut self) -> Path {
        self.len = (self.len & !SEALED).saturating_sub(1);
        self
    }
}

/// The steps of a [`Path`], unpacked.
#[derive(Clone, Copy, Debug)]
pub struct Segs {
    segs: [Seg; Path::MAX],
    len: usize,
}

impl std::ops::Deref for Segs {
    type Target = [Seg];
    fn deref(&self) -> &[Seg] {
        &self.segs[..self.len]
    }
}

/// Numbers for the keys of paths: the record fields every input reads by a
/// fixed table, any other key by a small registry filled on first use.
mod keys {
    use std::sync::Mutex;

    const KNOWN: &[&str] = &[
        "args",
        "result",
        "error",
        "text",
        "speaker",
        "op",
        "model",
        "ts",
        "addressed_to",
        "addressed_to_you",
        "to_human",
        "operators_said",
        "agent_said",
        "type",
        "say_id",
        "say_status",
        "reason",
        "context",
        "lang",
        "mode",
        "decision_id",
        "answer",
        "label",
        "emoji",
        "doing",
        "open",
        "done",
        "question",
        "options",
        "panel",
        "url",
        "share_text",
        "call_id",
        "link",
        "title",
        "greet",
        "quiet",
        "status",
        "role",
        "message",
        "format",
        "recorder",
        "client",
        "human",
        "voicebot",
        "meta",
        "fn",
        "chat",
        "tool",
        "turn_end",
        "agent",
        "call",
        "thread",
        "params",
        "arguments",
        "structuredContent",
        "content",
        "name",
        "id",
        "method",
        "isError",
        "cmd",
        "code",
        "command",
        "data",
    ];

    static OTHER: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

    /// The number of the key named `k`: one of the known keys, one met
    /// before, or else a new one, kept from now on (the keys a binary
    /// meets are the names its readers know, a bounded set).
    pub(super) fn id(k: &str) -> u32 {
        if let Some(known) = known(k) {
            return known;
        }
        let mut other = OTHER.lock().unwrap_or_else(|e| e.into_inner());
        let i = match other.iter().position(|o| *o == k) {
            Some(i) => i,
            None => {
                other.push(Box::leak(k.to_string().into_boxed_str()));
                other.len() - 1
            }
        };
        (KNOWN.len() + i) as u32
    }

    /// The number of `k` when it is one of [`KNOWN`].
    fn known(k: &str) -> Option<u32> {
        Some(match k {
            "args" => 0,
            "result" => 1,
            "error" => 2,
            "text" => 3,
            "speaker" => 4,
            "op" => 5,
            "model" => 6,
            "ts" => 7,
            "addressed_to" => 8,
            "addressed_to_you" => 9,
            "to_human" => 10,
            "operators_said" => 11,
            "agent_said" => 12,
            "type" => 13,
            "say_id" => 14,
            "say_status" => 15,
            "reason" => 16,
            "context" => 17,
            "lang" => 18,
            "mode" => 19,
            "decision_id" => 20,
            "answer" => 21,
            "label" => 22,
            "emoji" => 23,
            "doing" => 24,
            "open" => 25,
            "done" => 26,
            "question" => 27,
            "options" => 28,
            "panel" => 29,
            "url" => 30,
            "share_text" => 31,
            "call_id" => 32,
            "link" => 33,
            "title" => 34,
            "greet" => 35,
            "quiet" => 36,
            "status" => 37,
            "role" => 38,
            "message" => 39,
            "format" => 40,
            "recorder" => 41,
            "client" => 42,
            "human" => 43,
            "voicebot" => 44,
            "meta" => 45,
            "fn" => 46,
            "chat" => 47,
            "tool" => 48,
            "turn_end" => 49,
            "agent" => 50,
            "call" => 51,
            "thread" => 52,
            "params" => 53,
            "arguments" => 54,
            "structuredContent" => 55,
            "content" => 56,
            "name" => 57,
            "id" => 58,
            "method" => 59,
            "isError" => 60,
            "cmd" => 61,
            "code" => 62,
            "command" => 63,
            "data" => 64,
            _ => return None,
        })
    }

    pub(super) fn name(id: u32) -> &'static str {
        let id = id as usize;
        if let Some(k) = KNOWN.get(id) {
            return k;
        }
        let other = OTHER.lock().unwrap_or_else(|e| e.into_inner());
        other.get(id - KNOWN.len()).copied().unwrap_or("?")
    }

    #[cfg(test)]
    #[test]
    fn paths_round_trip_through_their_steps() {
        use super::Path;
        let p = Path::ROOT
            .key("args")
            .index(3)
            .json()
            .key(&String::from("a-key-no-reader-knows"));
        assert_eq!(Path::from_steps(&p.to_steps()), p);
        let mut deep = Path::ROOT;
        for _ in 0..Path::MAX + 2 {
            deep = deep.key("text");
        }
        assert_eq!(Path::from_steps(&deep.to_steps()), deep);
        assert_eq!(Path::from_steps(&[]), Path::ROOT);
        // and through serde, as the guard keeps them
        let big = Path::ROOT.key("open").index(usize::MAX);
        for q in [p, deep, big, Path::ROOT, Path::ROOT.json()] {
            let text = serde_json::to_string(&q).unwrap();
            assert_eq!(serde_json::from_str::<Path>(&text).unwrap(), q, "{text}");
            let packed = rmp_serde::to_vec(&q).unwrap();
            assert_eq!(rmp_serde::from_slice::<Path>(&packed).unwrap(), q, "{text}");
        }
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"["args",3,null,"a-key-no-reader-knows"]"#
        );
        assert!(serde_json::from_str::<Path>(r#"[{"a":1}]"#).is_err());
        assert!(serde_json::from_str::<Path>("5").is_err());
    }

    #[cfg(test)]
    #[test]
    fn every_known_key_has_its_own_number() {
        for (i, k) in KNOWN.iter().enumerate() {
            assert_eq!(id(k) as usize, i, "{k}");
            assert_eq!(name(i as u32), *k);
        }
        let x = id("some-other-key");
        assert!(x as usize >= KNOWN.len());
        assert_eq!(id("some-other-key"), x);
        assert_eq!(name(x), "some-other-key");
    }
}

impl Default for Path {
    fn default() -> Path {
        Path::ROOT
    }
}

impl std::fmt::Debug for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_string())
    }
}

impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, s) in self.segs().iter().enumerate() {
            match s {
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
                Seg::Json => f.write_str("<json>")?,
            }
        }
        Ok(())
    }
}

/// Where a finding points: the value at `path` inside the JSON text that
/// `span` covers, or `span` itself when the path is empty (or the input is
/// not JSON). Paths are resolved to bytes only when a finding is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Anchor {
    pub span: Span,
    pub path: Path,
}

impl Anchor {
    pub fn bytes(span: Span) -> Anchor {
        Anchor {
            span,
            path: Path::ROOT,
        }
    }
}
