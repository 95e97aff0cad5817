//! `timeout-events-dropped`: helper code that skips `timeout` events before
//! reading their `operators_said` (seed rule 1).
//!
//! It reads the helper code of prompts, skills and helper files (the
//! `callint:code` records of [`crate::input::prompt`]) and, in a native
//! log, the commands and file contents of the tools the agent ran. The
//! code is not parsed as a program: comments are set aside, and each test
//! of an event's type against `"timeout"` (or another event type) is
//! classified by what follows it:
//!
//! - a test for `timeout` followed by `continue`, `break` or a bare
//!   `return` (or jq's `empty`): the event is skipped;
//! - a filter that keeps what is not `timeout` (`filter`, jq `select`, a
//!   comprehension, `grep -v`): timeout events are dropped;
//! - a filter that keeps only `user` (or `operator`) events, or a skip of
//!   every type but one: timeout events go with the rest;
//! - `if type != "timeout"` around the handling: timeout events are not
//!   handled.
//!
//! None of these is reported when the loop (or function) reads
//! `operators_said` before the test, directly or through a function of the
//! same code that reads it, and a guard is not reported when the lines are
//! read after the guarded block.

use crate::core::hash::{HashMap, HashSet};

use serde_json::Value;

use crate::core::diagnostic::{Finding, Severity};
use crate::core::meta::{Evidence, RuleMeta, When};
use crate::input::prompt::CODE_TOOL;
use crate::input::CodeLang;
use crate::model::{Anchor, Body, Path, Span};
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "timeout-events-dropped",
    rulebook: "1",
    scope: crate::core::meta::Scope::Own,
    when: When::Elsewhere,
    needs: Evidence::CODE,
    instruction: Some("reading only some of the `next` events (skipping `timeout` events)"),
    default_severity: Severity::Error,
    summary: "helper code that skips `timeout` events before reading their `operators_said`",
    options: &[],
};

const HELP: &str = "other agents speak while the human is silent, and their lines arrive in `timeout` events: read `operators_said` and `agent_said` of every event first, then branch on `type`";

/// Arguments of a tool run that hold code, with the language each implies
/// when the file it writes does not tell.
const CODE_ARGS: &[(&str, Option<CodeLang>)] = &[
    ("command", Some(CodeLang::Shell)),
    ("cmd", Some(CodeLang::Shell)),
    ("script", None),
    ("code", None),
    ("content", None),
    ("contents", None),
    ("new_string", None),
    ("new_str", None),
    ("file_text", None),
    ("patch", None),
];

impl Rule for Check {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn instruction(
        &self,
        i: &crate::text::instructions::Instruction,
    ) -> Option<crate::core::diagnostic::Finding> {
        use crate::rules::at_instruction;
        use crate::text::instructions::concept::*;
        const TIMEOUT: &[&str] = &["timeout*", "time-out*", "time out", "times out"];
        // "timeouts carry nothing; discard them", or, after a timeout, go on
        // "without reading the event"
        let skips_timeouts = i.tells_of(SKIP, TIMEOUT)
            || i.if_any(TIMEOUT)
                && i.clauses.iter().any(|c| {
                    c.has(&[
                        "without read*",
                        "without look*",
                        "without process*",
                        "without check*",
                        "ohne zu lesen",
                        "ohne es zu lesen",
                        "ohne reinzuschauen",
                    ])
                });
        let only_user = i.tells().any(|c| {
            c.has(&["only", "nur", "just", "ausschließlich"])
                && c.has(&[
                    "user",
                    "type user",
                    "user events",
                    "user-events",
                    "user-ereignis*",
                ])
                && c.has(EVENTS)
        });
        if !(skips_timeouts || only_user) {
            return None;
        }
        Some(at_instruction(i, "this instruction drops `next` events; other agents' lines arrive in `timeout` events too", "say to read `operators_said` and `agent_said` in every `next` event, whatever its type"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let mut out = Vec::new();
        for r in cx.call.records {
            let Body::Tool(t) = &r.body else { continue };
            let Some(args) = t.args.as_ref().and_then(Value::as_object) else {
                continue;
            };
            if t.name == CODE_TOOL {
                // The code is the record's own bytes: point into them.
                let Some(code) = args.get("code").and_then(Value::as_str) else {
                    continue;
                };
                if code.len() != r.span.len() {
                    continue;
                }
                let lang = args
                    .get("lang")
                    .and_then(Value::as_str)
                    .and_then(CodeLang::from_tag);
                for s in drops(code, lang) {
                    let at = Anchor::bytes(Span::new(r.span.start + s.start, r.span.start + s.end));
                    out.push(finding(at, &s));
                }
                continue;
            }
            let file_lang = ["path", "file_path", "file", "filename"]
                .iter()
                .find_map(|k| args.get(*k).and_then(Value::as_str))
                .and_then(|p| std::path::Path::new(p).extension()?.to_str())
                .and_then(CodeLang::from_tag);
            for (key, implied) in CODE_ARGS {
                let Some(code) = args.get(*key).and_then(Value::as_str) else {
                    continue;
                };
                if let Some(s) = drops(code, file_lang.or(*implied)).into_iter().next() {
                    out.push(finding(r.at(Path::ROOT.key("args").key(key)), &s));
                }
            }
        }
        for f in out {
            cx.report(f);
        }
    }
}

fn finding(at: Anchor, s: &Drop) -> Finding {
    let (message, here) = match s.kind {
        Kind::Skips => (
            "this helper skips `timeout` events before reading their `operators_said`".to_string(),
            "`timeout` events skipped here".to_string(),
        ),
        Kind::Filters => (
            "this helper filters `timeout` events out before reading their `operators_said`"
                .to_string(),
            "`timeout` events filtered out here".to_string(),
        ),
        Kind::Guards => (
            "this helper handles only events that are not `timeout`, so the `operators_said` of `timeout` events is never read".to_string(),
            "only events other than `timeout` get past here".to_string(),
        ),
        Kind::KeepsOnly(t) => (
            format!("this helper keeps only `{t}` events, so the `operators_said` of `timeout` events is never read"),
            format!("only `{t}` events get past here"),
        ),
    };
    Finding::new(at, message).here(here).help(HELP)
}

/// How a piece of code drops timeout events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `if type == "timeout": continue`
    Skips,
    /// `select(.type != "timeout")`
    Filters,
    /// `if type != "timeout": handle(ev)`
    Guards,
    /// `select(.type == "user")`, `if type != "user": continue`
    KeepsOnly(&'static str),
}

/// A place where code drops timeout events: byte range of the test's line
/// (trimmed), and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Drop {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

/// The event types a test may name.
const TYPES: &[&str] = crate::model::EVENT_TYPES;

/// Where `code` drops timeout events without having read their lines.
pub(crate) fn drops(code: &str, lang: Option<CodeLang>) -> Vec<Drop> {
    let src = code.as_bytes();
    if !code.contains("timeout") && !code.contains("user") && !code.contains("operator") {
        return Vec::new();
    }
    let mut m = Masked::new(src, lang);
    m.index(lang);
    let mut out: Vec<Drop> = Vec::new();
    for (ty, a, b) in literals(&m, lang) {
        let Some(d) = classify(&m, lang, ty, a, b) else {
            continue;
        };
        let (ls, le) = m.line_at(a);
        let scope = scope(&m, lang, a);
        if m.reads(scope.start, a) {
            continue;
        }
        if d == Kind::Guards {
            let body_end = guard_end(&m, lang, ls, le);
            if m.reads(body_end, scope.end) {
                continue;
            }
        }
        let (s, e) = m.trimmed(ls, le);
        if out.last().is_some_and(|o| o.start == s) {
            continue; // one finding per line
        }
        out.push(Drop {
            start: s,
            end: e,
            kind: d,
        });
    }
    out
}

/// The code with comments blanked (`code`), and also string contents
/// blanked (`bare`); quotes, newlines and offsets stay.
struct Masked<'a> {
    src: &'a [u8],
    code: Vec<u8>,
    bare: Vec<u8>,
    /// Start of every line.
    starts: Vec<usize>,
    /// Per line: only blanks once comments are set aside.
    blank: Vec<bool>,
    /// Per line: where the block it opens ends (the start of the next line
    /// indented no deeper), and the innermost enclosing `for`/`while`/`def`
    /// line (Python).
    block_end: Vec<usize>,
    py_scope: Vec<Option<usize>>,
    /// Per `{` (JavaScript): one past its `}`, where its header starts, the
    /// innermost loop or function block at or around it, and the name of
    /// the innermost named function around it.
    braces: HashMap<usize, Brace>,
    /// Per byte offset queried: the innermost `{` open there.
    open_at: Vec<(usize, Option<usize>)>,
    /// Lines starting with `fi` (shell).
    fis: Vec<usize>,
    /// Sorted offsets where the lines are read: `operators_said`, or a call
    /// of a function of the code that reads it.
    reads_at: Vec<usize>,
}

#[derive(Clone, Debug, Default)]
struct Brace {
    close: Option<usize>,
    head_start: usize,
    loop_block: Option<usize>,
    function: Option<String>,
}

impl<'a> Masked<'a> {
    fn new(src: &'a [u8], lang: Option<CodeLang>) -> Masked<'a> {
        let mut code = src.to_vec();
        let mut bare = src.to_vec();
        let blank = |v: &mut Vec<u8>, i: usize| {
            if v[i] != b'\n' {
                v[i] = b' ';
            }
        };
        let n = src.len();
        let mut i = 0;
        while i < n {
            let c = src[i];
            let comment = match lang {
                Some(CodeLang::Python) => c == b'#',
                Some(CodeLang::Shell) => {
                    c == b'#'
                        && (i == 0
                            || matches!(
                                src[i - 1],
                                b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'('
                            ))
                }
                Some(CodeLang::JavaScript) => {
                    c == b'/' && matches!(src.get(i + 1), Some(b'/') | Some(b'*'))
                }
                None => false,
            };
            if comment {
                let block = lang == Some(CodeLang::JavaScript) && src.get(i + 1) == Some(&b'*');
                let end = if block {
                    find(src, i + 2, b"*/").map_or(n, |k| k + 2)
                } else {
                    src[i..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(n, |k| i + k)
                };
                for k in i..end {
                    blank(&mut code, k);
                    blank(&mut bare, k);
                }
                i = end;
                continue;
            }
            let quote = match lang {
                Some(CodeLang::JavaScript) => matches!(c, b'"' | b'\'' | b'`'),
                _ => matches!(c, b'"' | b'\''),
            };
            if quote && lang.is_some() {
                let triple = lang == Some(CodeLang::Python)
                    && src.get(i + 1) == Some(&c)
                    && src.get(i + 2) == Some(&c);
                let multi_line = triple || lang != Some(CodeLang::Python);
                let escapes = !(lang == Some(CodeLang::Shell) && c == b'\'');
                let open = if triple { 3 } else { 1 };
                let mut j = i + open;
                let mut close = None;
                let mut stop = n;
                while j < n {
                    let b = src[j];
                    if escapes && b == b'\\' {
                        j += 2;
                        continue;
                    }
                    if b == b'\n' && !multi_line {
                        stop = j;
                        break;
                    }
                    if b == c
                        && (!triple || (src.get(j + 1) == Some(&c) && src.get(j + 2) == Some(&c)))
                    {
                        close = Some(j);
                        break;
                    }
                    j += 1;
                }
                let inner_end = close.unwrap_or(stop).min(n);
                for k in (i + open).min(n)..inner_end {
                    blank(&mut bare, k);
                }
                i = match close {
                    Some(q) => q + open,
                    None => stop.max(i + 1),
                };
                continue;
            }
            i += 1;
        }
        Masked {
            src,
            code,
            bare,
            starts: Vec::new(),
            blank: Vec::new(),
            block_end: Vec::new(),
            py_scope: Vec::new(),
            braces: HashMap::default(),
            open_at: Vec::new(),
            fis: Vec::new(),
            reads_at: Vec::new(),
        }
    }

    /// Build the line, block and brace tables, and find where the lines
    /// are read. Each is one pass over the code.
    fn index(&mut self, lang: Option<CodeLang>) {
        let n = self.src.len();
        self.starts = std::iter::once(0)
            .chain(
                self.src
                    .iter()
                    .enumerate()
                    .filter(|(_, &b)| b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        let lines = self.starts.len();
        self.blank = (0..lines)
            .map(|i| {
                let (s, e) = self.line(i);
                self.code[s..e].iter().all(u8::is_ascii_whitespace)
            })
            .collect();
        // Python blocks: a stack of the lines still open, each with the
        // innermost loop or function line at or above it.
        self.block_end = vec![n; lines];
        self.py_scope = vec![None; lines];
        let mut stack: Vec<(usize, usize, Option<usize>)> = Vec::new();
        for i in 0..lines {
            if self.blank[i] {
                continue;
            }
            let ind = self.indent(self.starts[i]);
            while stack.last().is_some_and(|t| t.0 >= ind) {
                if let Some(t) = stack.pop() {
                    self.block_end[t.1] = self.starts[i];
                }
            }
            let around = stack.last().and_then(|t| t.2);
            self.py_scope[i] = around;
            let (s, e) = self.line(i);
            let t = String::from_utf8_lossy(&self.code[s..e]);
            let t = t.trim_start();
            let header = ["for ", "while ", "async for ", "def ", "async def "]
                .iter()
                .any(|k| t.starts_with(k));
            stack.push((ind, i, if header { Some(i) } else { around }));
        }
        // Braces.
        let mentions = all(&self.code, b"operators_said");
        let mut queries: Vec<usize> = self.starts.clone();
        queries.extend(&mentions);
        queries.sort_unstable();
        queries.dedup();
        let mut q = 0;
        let mut st: Vec<usize> = Vec::new();
        let mut sep = 0usize;
        for i in 0..=n {
            while q < queries.len() && queries[q] == i {
                self.open_at.push((i, st.last().copied()));
                q += 1;
            }
            let Some(&b) = self.bare.get(i) else { break };
            match b {
                b'{' => {
                    let parent = st.last().copied();
                    let head = String::from_utf8_lossy(&self.code[sep..i]).to_string();
                    let up = parent
                        .and_then(|p| self.braces.get(&p))
                        .cloned()
                        .unwrap_or_default();
                    let brace = Brace {
                        close: None,
                        head_start: sep,
                        loop_block: if loopish(&head) {
                            Some(i)
                        } else {
                            up.loop_block
                        },
                        function: function_name(&head).or(up.function),
                    };
                    self.braces.insert(i, brace);
                    st.push(i);
                    sep = i + 1;
                }
                b'}' => {
                    if let Some(o) = st.pop() {
                        if let Some(br) = self.braces.get_mut(&o) {
                            br.close = Some(i + 1);
                        }
                    }
                    sep = i + 1;
                }
                b';' => sep = i + 1,
                _ => {}
            }
        }
        if lang == Some(CodeLang::Shell) {
            self.fis = (0..lines)
                .filter(|&i| {
                    let (s, e) = self.line(i);
                    String::from_utf8_lossy(&self.code[s..e])
                        .trim_start()
                        .starts_with("fi")
                })
                .map(|i| self.starts[i])
                .collect();
        }
        // Functions that read the lines, and where they are called.
        let mut names: HashSet<String> = HashSet::default();
        match lang {
            Some(CodeLang::Python) => {
                for i in 0..lines {
                    let (s, e) = self.line(i);
                    let l = String::from_utf8_lossy(&self.code[s..e]).to_string();
                    let t = l.trim_start();
                    let Some(rest) = t
                        .strip_prefix("def ")
                        .or_else(|| t.strip_prefix("async def "))
                    else {
                        continue;
                    };
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let end = self.block_end[i];
                    let k = mentions.partition_point(|&p| p < s);
                    if !name.is_empty() && mentions.get(k).is_some_and(|&p| p < end) {
                        names.insert(name);
                    }
                }
            }
            Some(CodeLang::JavaScript) => {
                for &k in &mentions {
                    if let Some(name) = self
                        .open(k)
                        .and_then(|o| self.braces.get(&o)?.function.clone())
                    {
                        names.insert(name);
                    }
                }
            }
            _ => {}
        }
        let mut at = mentions;
        for name in names.iter().take(64) {
            let w = name.as_bytes();
            for k in all(&self.code, w) {
                let before = k.checked_sub(1).map(|p| self.code[p]);
                let after = self.code[k + w.len()..]
                    .iter()
                    .copied()
                    .find(|c| !c.is_ascii_whitespace());
                if !before.is_some_and(is_ident) && after == Some(b'(') {
                    at.push(k);
                }
            }
        }
        at.sort_unstable();
        self.reads_at = at;
    }

    /// Start and end (without the newline) of line `i`.
    fn line(&self, i: usize) -> (usize, usize) {
        let s = self.starts[i];
        let e = self
            .starts
            .get(i + 1)
            .map_or(self.src.len(), |&next| next - 1);
        (s, e)
    }

    fn line_index(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    /// The innermost `{` open at an indexed offset.
    fn open(&self, at: usize) -> Option<usize> {
        let k = self.open_at.partition_point(|e| e.0 < at);
        self.open_at.get(k).filter(|e| e.0 == at).and_then(|e| e.1)
    }

    /// The line holding byte `at`: start and end (without the newline).
    fn line_at(&self, at: usize) -> (usize, usize) {
        self.line(self.line_index(at))
    }

    fn trimmed(&self, s: usize, e: usize) -> (usize, usize) {
        let mut a = s;
        let mut b = e;
        while a < b && self.src[a].is_ascii_whitespace() {
            a += 1;
        }
        while b > a && self.src[b - 1].is_ascii_whitespace() {
            b -= 1;
        }
        (a, b)
    }

    fn indent(&self, s: usize) -> usize {
        self.src[s..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .map(|&b| if b == b'\t' { 8 } else { 1 })
            .sum()
    }

    /// The line starting at `s` holds nothing but blanks and comments.
    fn blank_line(&self, s: usize) -> bool {
        self.blank[self.line_index(s)]
    }

    /// The code from `a` to `b` reads the lines.
    fn reads(&self, a: usize, b: usize) -> bool {
        let k = self.reads_at.partition_point(|&p| p < a);
        self.reads_at.get(k).is_some_and(|&p| p < b)
    }

    /// Lines as (start, end), from the line holding `from` on.
    fn lines_from(&self, from: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let first = if from >= self.src.len() {
            self.starts.len()
        } else {
            self.line_index(from)
        };
        (first..self.starts.len()).map(|i| self.line(i))
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Every offset of `needle` in `hay`.
fn all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = find(hay, from, needle) {
        out.push(k);
        from = k + needle.len().max(1);
    }
    out
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || from >= hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|k| from + k)
}

/// Every event-type literal in the code: (type, start, end) of the
/// literal with its quotes (or of the bare word, in shell).
fn literals(m: &Masked<'_>, lang: Option<CodeLang>) -> Vec<(&'static str, usize, usize)> {
    let mut out = Vec::new();
    let src = m.src;
    for ty in TYPES {
        let w = ty.as_bytes();
        let mut from = 0;
        while let Some(k) = find(&m.code, from, w) {
            from = k + 1;
            let before = k.checked_sub(1).map(|p| src[p]);
            let after = src.get(k + w.len()).copied();
            let quoted = matches!(before, Some(b'"' | b'\'' | b'`')) && after == before;
            if quoted {
                // A string of the code (in shell also one inside another
                // string: a jq program).
                let own = m.bare[k - 1] == src[k - 1] && m.bare.get(k) == Some(&b' ');
                let nested = lang == Some(CodeLang::Shell) && m.bare.get(k) == Some(&b' ');
                if own || nested || lang.is_none() {
                    out.push((*ty, k - 1, k + w.len() + 1));
                }
                continue;
            }
            let word =
                !before.is_some_and(is_ident) && !after.is_some_and(|c| is_ident(c) || c == b'-');
            if word && lang != Some(CodeLang::Python) && lang != Some(CodeLang::JavaScript) {
                // A bare word: a shell `case` pattern or a `test` operand.
                out.push((*ty, k, k + w.len()));
            }
        }
    }
    out.sort_by_key(|l| l.1);
    out
}

/// What the test holding the literal at `a..b` does with timeout events.
fn classify(
    m: &Masked<'_>,
    lang: Option<CodeLang>,
    ty: &'static str,
    a: usize,
    b: usize,
) -> Option<Kind> {
    let (ls, le) = m.line_at(a);
    let line = std::str::from_utf8(&m.code[ls..le]).ok()?;
    let left = std::str::from_utf8(&m.code[ls..a]).ok()?.trim_end();
    let right = std::str::from_utf8(&m.code[b..le]).ok()?;
    let right_t = right.trim_start();
    let timeout = ty == "timeout";
    let lower = line.to_ascii_lowercase();
    let filter = ["filter(", "select("].iter().any(|f| lower.contains(f))
        || (lower.contains(" for ") && lower.contains(" if "));
    // `grep -v` on the event stream.
    if timeout
        && lang != Some(CodeLang::Python)
        && lower.contains("grep")
        && (lower.contains(" -v") || lower.contains("--invert-match"))
        && lower.contains("type")
    {
        return Some(Kind::Filters);
    }
    let case_form = ends_with_word(left, "case")
        || ((right_t.starts_with(')') || right_t.starts_with('|'))
            && lang != Some(CodeLang::Python)
            && lang != Some(CodeLang::JavaScript)
            && shell_pattern_start(left));
    let rel = relation(left, right_t, lang)?;
    // The test is about the event's type.
    let about_type = if case_form {
        m.code[..ls].split(|&b| b == b'\n').rev().take(30).any(|l| {
            let l = String::from_utf8_lossy(l).to_ascii_lowercase();
            (l.contains("switch") || l.contains("match ") || l.contains("case "))
                && (l.contains("type") || l.contains("kind"))
        })
    } else {
        let rest = lower[..a - ls].to_string() + &lower[b - ls..];
        rest.contains("type") || rest.contains("kind")
    };
    if !about_type {
        return None;
    }
    match (timeout, rel) {
        (true, Rel::Eq) => consequence(m, lang, b, le, case_form).then_some(Kind::Skips),
        (true, Rel::Ne) if filter => Some(Kind::Filters),
        (true, Rel::Ne) => {
            let t = left.to_ascii_lowercase();
            let words: Vec<&str> = t
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .collect();
            let guard = words.iter().any(|w| matches!(*w, "if" | "elif" | "while"))
                || t.trim_start().starts_with('[')
                || t.trim_start().starts_with("test ");
            guard.then_some(Kind::Guards)
        }
        (false, Rel::Eq) if filter && matches!(ty, "user" | "operator") => {
            Some(Kind::KeepsOnly(ty))
        }
        (false, Rel::Ne) if !filter && consequence(m, lang, b, le, false) => {
            Some(Kind::KeepsOnly(ty))
        }
        _ => None,
    }
}

/// What comes before a shell `case` pattern: nothing, another pattern
/// (`a|`), the end of the previous branch or the `in` of the `case`.
fn shell_pattern_start(left: &str) -> bool {
    let before = left.trim_end_matches(['(', ' ', '\t', '"', '\'']);
    before.is_empty()
        || before.ends_with('|')
        || before.ends_with(";;")
        || ends_with_word(before, "in")
}

fn ends_with_word(s: &str, w: &str) -> bool {
    s.strip_suffix(w)
        .is_some_and(|p| !p.bytes().last().is_some_and(is_ident))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rel {
    Eq,
    Ne,
}

/// How the literal is compared: equal (also: a member of a list that is
/// tested with `in`/`includes`, a `case` label), or not equal.
fn relation(left: &str, right: &str, lang: Option<CodeLang>) -> Option<Rel> {
    for (op, rel) in [
        ("!==", Rel::Ne),
        ("!=", Rel::Ne),
        ("===", Rel::Eq),
        ("==", Rel::Eq),
    ] {
        if left.ends_with(op) || right.starts_with(op) {
            return Some(rel);
        }
    }
    if ends_with_word(left, "is not") {
        return Some(Rel::Ne);
    }
    if ends_with_word(left, "is") || ends_with_word(left, "case") {
        return Some(Rel::Eq);
    }
    if lang != Some(CodeLang::Python) && lang != Some(CodeLang::JavaScript) {
        // shell `test`: `[ "$type" = timeout ]`, a `case` pattern
        if left.ends_with('=') && !left.ends_with("==") {
            return Some(Rel::Eq);
        }
        if (right.starts_with(')') || right.starts_with('|')) && shell_pattern_start(left) {
            return Some(Rel::Eq);
        }
    }
    // Membership: `type in ("timeout", ...)`, `["timeout"].includes(type)`.
    let open = left.rfind(['(', '[', '{'])?;
    let inside = &left[open + 1..];
    if inside.contains([')', ']', '}']) {
        return None;
    }
    let head = left[..open].trim_end();
    if ends_with_word(head, "not in") {
        return Some(Rel::Ne);
    }
    if ends_with_word(head, "in") {
        return Some(Rel::Eq);
    }
    let close = right.find([')', ']', '}'])?;
    let after = right[close + 1..].trim_start();
    if after.starts_with(".includes(") || after.starts_with(".has(") {
        return Some(if head.ends_with('!') {
            Rel::Ne
        } else {
            Rel::Eq
        });
    }
    None
}

/// The test is followed by a skip: `continue`, `break` (not as a `case`
/// label's own end) or a bare `return`, on its line or as the first
/// statement after it; jq's `then empty`.
fn consequence(
    m: &Masked<'_>,
    lang: Option<CodeLang>,
    b: usize,
    le: usize,
    case_form: bool,
) -> bool {
    let rest = String::from_utf8_lossy(&m.code[b..le]).to_string();
    if skip_in(&rest, case_form) {
        return true;
    }
    // The statement goes on in the next line(s).
    let tail = rest.trim_end();
    let opens = tail.ends_with(':')
        || tail.ends_with('{')
        || tail.ends_with(')')
        || tail.ends_with("then")
        || tail.ends_with("do")
        || case_form;
    if !opens || lang.is_none() && !tail.ends_with(':') && !tail.ends_with('{') {
        return false;
    }
    for (s, e) in m.lines_from(le + 1).take(3) {
        if m.blank_line(s) {
            continue;
        }
        let l = String::from_utf8_lossy(&m.code[s..e]).to_string();
        let t = l.trim_start().trim_start_matches('{').trim_start();
        return starts_skip(t, case_form);
    }
    false
}

fn skip_in(rest: &str, case_form: bool) -> bool {
    let words: Vec<&str> = rest
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.contains(&"empty") && words.contains(&"then") {
        return true;
    }
    // `... : continue`, `... ) continue;`, `... && continue`, `then continue`
    let mut k = 0;
    while k < rest.len() {
        let t = rest[k..].trim_start();
        if starts_skip(t, case_form) {
            let pre = &rest[..rest.len() - t.len()];
            let pre = pre.trim_end();
            if pre.is_empty()
                || pre.ends_with(':')
                || pre.ends_with(')')
                || pre.ends_with('{')
                || pre.ends_with("&&")
                || pre.ends_with("then")
                || pre.ends_with(';')
                || pre.ends_with(']')
            {
                return true;
            }
        }
        // Past the next character that ends a word, whatever its length.
        k = rest[k..]
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(rest.len(), |(p, c)| k + p + c.len_utf8());
    }
    false
}

fn starts_skip(t: &str, case_form: bool) -> bool {
    let word: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let after = t[word.len()..].trim_start();
    match word.as_str() {
        "continue" => true,
        "break" => !case_form,
        "return" => {
            after.is_empty()
                || after.starts_with(';')
                || after.starts_with('}')
                || ["None", "null", "undefined", "false", "[]", "{}", "0"]
                    .iter()
                    .any(|v| {
                        after.strip_prefix(v).is_some_and(|r| {
                            r.trim_start().is_empty()
                                || r.trim_start().starts_with(';')
                                || r.trim_start().starts_with('}')
                        })
                    })
        }
        "empty" => true,
        _ => false,
    }
}

/// The range of code whose earlier part must read the lines for a drop at
/// `at` to be fine: the enclosing loop or function.
struct Scope {
    start: usize,
    end: usize,
}

fn scope(m: &Masked<'_>, lang: Option<CodeLang>, at: usize) -> Scope {
    let n = m.src.len();
    let whole = Scope { start: 0, end: n };
    match lang {
        Some(CodeLang::Python) => match m.py_scope[m.line_index(at)] {
            Some(h) => Scope {
                start: m.starts[h],
                end: m.block_end[h],
            },
            None => whole,
        },
        Some(CodeLang::JavaScript) => {
            let ls = m.starts[m.line_index(at)];
            let block = m
                .open(ls)
                .and_then(|o| m.braces.get(&o)?.loop_block)
                .and_then(|b| m.braces.get(&b).map(|br| (b, br)));
            match block {
                Some((_, br)) => Scope {
                    start: br.head_start,
                    end: br.close.unwrap_or(n),
                },
                None => whole,
            }
        }
        _ => whole,
    }
}

/// A block header that makes a scope: a loop, a function, an arrow
/// function, a method (`name(args)`), not `if`, `else`, `switch`, `try`.
fn loopish(head: &str) -> bool {
    let h = head.trim();
    let words: Vec<&str> = h
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let first = words.first().copied().unwrap_or("");
    words
        .iter()
        .any(|w| matches!(*w, "for" | "while" | "function" | "do"))
        || h.contains("=>")
        || (h.ends_with(')')
            && !matches!(first, "if" | "else" | "switch" | "catch" | "try" | "with"))
}

/// Where the block a guard opens on the line `ls..le` ends.
fn guard_end(m: &Masked<'_>, lang: Option<CodeLang>, ls: usize, le: usize) -> usize {
    let n = m.src.len();
    match lang {
        Some(CodeLang::Python) => {
            let line = String::from_utf8_lossy(&m.code[ls..le]).to_string();
            if !line.trim_end().ends_with(':') {
                return le; // one-line body
            }
            m.block_end[m.line_index(ls)]
        }
        Some(CodeLang::JavaScript) => match m.bare[ls..le].iter().rposition(|&b| b == b'{') {
            Some(p) => m.braces.get(&(ls + p)).and_then(|b| b.close).unwrap_or(n),
            None => m.bare[le..n.min(le + 4096)]
                .iter()
                .position(|&b| b == b';')
                .map_or(n, |p| le + p + 1),
        },
        Some(CodeLang::Shell) => {
            let k = m.fis.partition_point(|&s| s <= le);
            m.fis.get(k).map_or(n, |&s| m.line_at(s).1)
        }
        None => le,
    }
}

/// The name a function header gives: `function name(...)`, `const name =
/// (...) =>`, `name(...)` (a method).
fn function_name(head: &str) -> Option<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect()
    };
    if let Some(p) = head.find("function") {
        let rest = head[p + "function".len()..]
            .trim_start()
            .trim_start_matches('*')
            .trim_start();
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        return (!name.is_empty()).then_some(name);
    }
    if head.contains("=>") {
        let before = head.split("=>").next()?;
        let eq = before.find('=')?;
        let name = ident(before[..eq].trim_end());
        return (!name.is_empty()).then_some(name);
    }
    let t = head.trim();
    let paren = t.find('(')?;
    let name = ident(t[..paren].trim_end());
    let keywords = ["if", "for", "while", "switch", "catch", "with"];
    (!name.is_empty() && !keywords.contains(&name.as_str())).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(code: &str, lang: CodeLang) -> Vec<(String, Kind)> {
        drops(code, Some(lang))
            .into_iter()
            .map(|d| (code[d.start..d.end].to_string(), d.kind))
            .collect()
    }

    fn fires(code: &str, lang: CodeLang) -> bool {
        !found(code, lang).is_empty()
    }

    #[test]
    fn python_skips() {
        let bad = "while True:\n    ev = next_event()\n    if ev[\"type\"] == \"timeout\":\n        continue\n    for line in ev.get(\"operators_said\", []):\n        handle(line)\n";
        assert_eq!(
            found(bad, CodeLang::Python),
            [("if ev[\"type\"] == \"timeout\":".to_string(), Kind::Skips)]
        );
        for bad in [
            "for ev in events:\n    if ev.get('type') == 'timeout': continue\n    print(ev)\n",
            "def on_event(ev):\n    if ev[\"type\"] in (\"timeout\", \"waiting_for_human\"):\n        return\n    reply(ev)\n",
            "events = [e for e in events if e[\"type\"] != \"timeout\"]\n",
            "for ev in poll():\n    if ev[\"type\"] != \"timeout\":\n        handle(ev[\"operators_said\"])\n",
            "for ev in poll():\n    if ev[\"type\"] != \"user\":\n        continue\n    answer(ev)\n",
            "users = list(filter(lambda e: e['type'] == 'user', events))\n",
            "while True:\n    ev = next_event()\n    # a timeout only means nobody spoke\n    if ev['type'] == 'timeout':\n        # nothing to do\n        continue\n",
        ] {
            assert!(fires(bad, CodeLang::Python), "{bad}");
        }
    }

    #[test]
    fn python_reading_first_is_fine() {
        for good in [
            // reads the lines of every event, then skips the rest of a timeout
            "while True:\n    ev = next_event()\n    for line in ev.get(\"operators_said\", []) + ev.get(\"agent_said\", []):\n        note(line)\n    if ev[\"type\"] == \"timeout\":\n        continue\n    reply(ev)\n",
            // through a function of the same file
            "def read_lines(ev):\n    return ev.get('operators_said', [])\n\nwhile True:\n    ev = next_event()\n    hear(read_lines(ev))\n    if ev['type'] == 'timeout':\n        continue\n",
            // a guard, with the lines read after it for every event
            "for ev in poll():\n    if ev[\"type\"] != \"timeout\":\n        reply(ev)\n    notes.extend(ev.get(\"operators_said\", []))\n",
            // timeouts of something else
            "for attempt in range(3):\n    if err == \"timeout\":\n        continue\n",
            "r = requests.get(url, timeout=50)\n",
            "if ev[\"type\"] == \"timeout\":\n    pass\n",
            "if ev['type'] == 'user':\n    reply(ev)\n",
            "decisions = [e for e in events if e['type'] == 'decision']\n",
            "# if ev['type'] == 'timeout': continue\n",
            "msg = \"if ev['type'] == 'timeout': continue\"\n",
        ] {
            assert!(!fires(good, CodeLang::Python), "{good}");
        }
    }

    #[test]
    fn javascript() {
        for bad in [
            "for (;;) {\n  const ev = await next();\n  if (ev.type === \"timeout\") continue;\n  handle(ev.operators_said);\n}\n",
            "events.forEach((ev) => {\n  if (ev.type === 'timeout') { return; }\n  show(ev);\n});\n",
            "const live = events.filter((e) => e.type !== \"timeout\");\n",
            "while (true) {\n  const ev = await next();\n  switch (ev.type) {\n    case \"timeout\":\n      continue;\n    default:\n      reply(ev);\n  }\n}\n",
            "const human = events.filter(e => e.type === 'user');\n",
            "for (const ev of evs) {\n  if (ev.type !== 'timeout') {\n    lines.push(...ev.operators_said);\n  }\n}\n",
        ] {
            assert!(fires(bad, CodeLang::JavaScript), "{bad}");
        }
        for good in [
            "for (;;) {\n  const ev = await next();\n  for (const l of ev.operators_said ?? []) note(l);\n  if (ev.type === \"timeout\") continue;\n  reply(ev);\n}\n",
            "function hear(ev) {\n  return ev.operators_said || [];\n}\nfor (;;) {\n  const ev = await next();\n  notes.push(...hear(ev));\n  if (ev.type === 'timeout') continue;\n}\n",
            "for (const ev of evs) {\n  if (ev.type !== 'timeout') {\n    reply(ev);\n  }\n  notes.push(...ev.operators_said);\n}\n",
            "// if (ev.type === 'timeout') continue;\n",
            "switch (ev.type) {\n  case 'timeout':\n    break;\n}\nnotes.push(ev.operators_said);\n",
            "setTimeout(() => {}, 1000); const opts = { timeout: 5000 };\n",
        ] {
            assert!(!fires(good, CodeLang::JavaScript), "{good}");
        }
    }

    #[test]
    fn shell_and_jq() {
        for bad in [
            "voicehook next --json | jq -c 'select(.type != \"timeout\")'\n",
            "while true; do\n  ev=$(voicehook next --json)\n  type=$(echo \"$ev\" | jq -r .type)\n  [ \"$type\" = \"timeout\" ] && continue\n  echo \"$ev\"\ndone\n",
            "while read -r ev; do\n  case \"$(jq -r .type <<<\"$ev\")\" in\n    timeout) continue ;;\n  esac\n  echo \"$ev\"\ndone\n",
            "voicehook next --json | jq 'select(.type == \"user\") | .text'\n",
            "voicehook next --json | grep -v '\"type\":\"timeout\"'\n",
            "voicehook next | jq 'if .type == \"timeout\" then empty else . end'\n",
        ] {
            assert!(fires(bad, CodeLang::Shell), "{bad}");
        }
        for good in [
            "voicehook next --json | jq -c '.operators_said[]?, select(.type != \"timeout\")'\n",
            "timeout 50 voicehook next --json\n",
            "# jq 'select(.type != \"timeout\")'\n",
            "voicehook next --json | jq -c '.'\n",
        ] {
            assert!(!fires(good, CodeLang::Shell), "{good}");
        }
    }

    #[test]
    fn odd_code_never_panics() {
        for code in [
            "\"timeout\"",
            "'timeout",
            "timeout\"",
            "== \"timeout\"",
            "\"\"\"timeout",
            "/* \"timeout\"",
            "`${\"timeout\"}`",
            "if (\"timeout\" === ev.type) continue",
            "case \"timeout\":",
            "{{{{ \"timeout\" !== x",
            "}}}} \"timeout\" != type )",
            "ü \"timeout\" == type: continue",
            "\n\n\"timeout\"==type\n\n",
        ] {
            for lang in [
                Some(CodeLang::Python),
                Some(CodeLang::JavaScript),
                Some(CodeLang::Shell),
                None,
            ] {
                let _ = drops(code, lang);
            }
        }
    }
}
